// Package adapterv1 is the generated Go code of adapter.v1, the protocol
// between Monitor's core and its source adapters. Regenerate with
// `go generate ./api/...` (needs protoc, protoc-gen-go, protoc-gen-go-grpc;
// see the README).
package adapterv1

//go:generate protoc --proto_path=. --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative adapter.proto
