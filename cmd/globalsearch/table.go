package main

// tableFlagHelp is the help of the --table flag that names the index
// table to write.
const tableFlagHelp = "DynamoDB index table (endpoint from AWS_ENDPOINT_URL_DYNAMODB when set)"
