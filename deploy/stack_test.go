package deploy_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// stack is template.yaml translated for one set of parameter values, with
// its conditions evaluated and every Fn::If, parameter Ref and parameter
// ${} in Fn::Sub resolved, as CloudFormation would before creating it.
type stack struct {
	params    map[string]string
	patterns  map[string]string // parameter -> AllowedPattern
	maxValues map[string]string // parameter -> MaxValue
	resources map[string]resource
}

type resource struct {
	Type       string
	Condition  string
	Properties map[string]any
}

var translated = map[string]*stack{}

// translate returns the stack for the defaults plus overrides. It skips
// when the SAM translator is not installed, except under CI=true.
func translate(t *testing.T, overrides map[string]string) *stack {
	t.Helper()
	args := []string{"translate.py", "../template.yaml"}
	for name, value := range overrides {
		args = append(args, name+"="+value)
	}
	sort.Strings(args[2:])
	key := strings.Join(args, "\x00")
	if s, ok := translated[key]; ok {
		return s
	}

	var stdout, stderr bytes.Buffer
	cmd := exec.Command("python3", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.Is(err, exec.ErrNotFound) || (errors.As(err, &exit) && exit.ExitCode() == 3) {
		msg := fmt.Sprintf("the SAM translator is not available (python3 with samtranslator, installed by pip install cfn-lint): %v %s", err, stderr.String())
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	require.NoError(t, err, "translate.py: %s", stderr.String())

	var out struct {
		Parameters map[string]struct {
			Default        any
			AllowedPattern string
			MaxValue       any
		}
		Conditions map[string]any
		Resources  map[string]resource
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out))
	s := &stack{params: map[string]string{}, patterns: map[string]string{}, maxValues: map[string]string{}, resources: map[string]resource{}}
	for name, p := range out.Parameters {
		if p.Default != nil {
			s.params[name] = scalar(p.Default)
		}
		if p.AllowedPattern != "" {
			s.patterns[name] = p.AllowedPattern
		}
		if p.MaxValue != nil {
			s.maxValues[name] = scalar(p.MaxValue)
		}
	}
	for name, value := range overrides {
		s.params[name] = value
	}
	r := resolver{params: s.params, conditions: out.Conditions, evaluated: map[string]bool{}}
	for id, res := range out.Resources {
		// CloudFormation creates no resource whose condition is false.
		if res.Condition != "" && !r.condition(res.Condition) {
			continue
		}
		props, _ := r.resolve(res.Properties).(map[string]any)
		s.resources[id] = resource{Type: res.Type, Properties: props}
	}
	translated[key] = s
	return s
}

// scalar is a parameter value as the template writes it: JSON decodes
// numbers as float64, which fmt would print as 1e+06.
func scalar(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// resource returns the resource id, of type typ, failing the test if the
// template has none.
func (s *stack) resource(t *testing.T, id, typ string) map[string]any {
	t.Helper()
	res, ok := s.resources[id]
	require.True(t, ok, "no resource %s", id)
	require.Equal(t, typ, res.Type, "resource %s", id)
	return res.Properties
}

// ofType returns the ids of the resources of type typ, sorted.
func (s *stack) ofType(typ string) []string {
	var ids []string
	for id, res := range s.resources {
		if res.Type == typ {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// noValue marks a resolved AWS::NoValue: the property is absent.
type noValue struct{}

type resolver struct {
	params     map[string]string
	conditions map[string]any
	evaluated  map[string]bool
}

var subParam = regexp.MustCompile(`\$\{([A-Za-z0-9]+)\}`)

func (r resolver) resolve(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 1 {
			if ref, ok := v["Ref"].(string); ok {
				if ref == "AWS::NoValue" {
					return noValue{}
				}
				if p, ok := r.params[ref]; ok {
					return p
				}
				return v
			}
			if args, ok := v["Fn::If"].([]any); ok && len(args) == 3 {
				if r.condition(args[0].(string)) {
					return r.resolve(args[1])
				}
				return r.resolve(args[2])
			}
			if s, ok := v["Fn::Sub"].(string); ok {
				s = subParam.ReplaceAllStringFunc(s, func(m string) string {
					if p, ok := r.params[m[2:len(m)-1]]; ok {
						return p
					}
					return m
				})
				if !strings.Contains(s, "${") {
					return s
				}
				return map[string]any{"Fn::Sub": s}
			}
		}
		out := map[string]any{}
		for k, c := range v {
			if rc := r.resolve(c); rc != (noValue{}) {
				out[k] = rc
			}
		}
		return out
	case []any:
		out := []any{}
		for _, c := range v {
			if rc := r.resolve(c); rc != (noValue{}) {
				out = append(out, rc)
			}
		}
		return out
	default:
		return v
	}
}

func (r resolver) condition(name string) bool {
	if b, ok := r.evaluated[name]; ok {
		return b
	}
	def, ok := r.conditions[name]
	if !ok {
		panic("no condition " + name)
	}
	b := r.eval(def)
	r.evaluated[name] = b
	return b
}

func (r resolver) eval(v any) bool {
	m := v.(map[string]any)
	for fn, arg := range m {
		args, _ := arg.([]any)
		switch fn {
		case "Condition":
			return r.condition(arg.(string))
		case "Fn::Equals":
			return fmt.Sprint(r.resolve(args[0])) == fmt.Sprint(r.resolve(args[1]))
		case "Fn::Not":
			return !r.eval(args[0])
		case "Fn::And":
			for _, a := range args {
				if !r.eval(a) {
					return false
				}
			}
			return true
		case "Fn::Or":
			for _, a := range args {
				if r.eval(a) {
					return true
				}
			}
			return false
		}
	}
	panic(fmt.Sprintf("condition function not supported: %v", v))
}

// render writes a resolved value the way the template reads: ${Id} for a
// Ref, ${Id.Attr} for a GetAtt, a Sub's string with its own variables
// rendered in place.
func render(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		if ref, ok := v["Ref"].(string); ok {
			return "${" + ref + "}"
		}
		if ga, ok := v["Fn::GetAtt"].([]any); ok && len(ga) == 2 {
			return fmt.Sprintf("${%v.%v}", ga[0], ga[1])
		}
		switch sub := v["Fn::Sub"].(type) {
		case string:
			return sub
		case []any:
			s := sub[0].(string)
			vars, _ := sub[1].(map[string]any)
			for name, val := range vars {
				s = strings.ReplaceAll(s, "${"+name+"}", render(val))
			}
			return s
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// list returns v as a list: CloudFormation takes a single value where a
// list of one is meant (Action, Resource).
func list(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

// path walks maps by key, returning nil where a key is absent.
func path(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
