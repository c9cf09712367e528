"""Translate template.yaml with the SAM translator and print the CloudFormation JSON.

Usage: python3 translate.py TEMPLATE [Name=Value ...]

The Go tests in this directory assert on the output: what CloudFormation
would deploy, not the SAM shorthand. Name=Value pairs override parameter
defaults, as CloudFormation hands them to the transform. Conditions and
other intrinsics stay as they are; the tests resolve them.

Exit status 3 means the translator is not installed (it comes with
cfn-lint: pip install cfn-lint).
"""

import json
import os
import sys

try:
    from samtranslator.translator.transform import transform
    from samtranslator.yaml_helper import yaml_parse
except ImportError as err:
    print(f"samtranslator is not installed: {err}", file=sys.stderr)
    sys.exit(3)

# The translator accepts only S3 locations; sam package uploads the local
# paths in the same places.
LOCAL_PATHS = {
    "AWS::Serverless::Function": "CodeUri",
    "AWS::Serverless::StateMachine": "DefinitionUri",
}


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        template = yaml_parse(f.read())

    params = {}
    for name, spec in template.get("Parameters", {}).items():
        if "Default" in spec:
            params[name] = spec["Default"]
    for pair in argv[2:]:
        name, sep, value = pair.partition("=")
        if not sep or name not in template.get("Parameters", {}):
            print(f"not a template parameter: {pair!r}", file=sys.stderr)
            return 2
        params[name] = value

    fn_globals = template.get("Globals", {}).get("Function", {})
    if isinstance(fn_globals.get("CodeUri"), str):
        fn_globals["CodeUri"] = "s3://bucket/code"
    for name, res in template.get("Resources", {}).items():
        prop = LOCAL_PATHS.get(res.get("Type"))
        if prop and isinstance(res.get("Properties", {}).get(prop), str):
            res["Properties"][prop] = f"s3://bucket/{name}"

    # The ARN generator asks boto3 for the region; the output keeps
    # ${AWS::Region} references wherever the template uses them.
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    out = transform(template, params, lambda: {})
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
