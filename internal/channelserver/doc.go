// Package channelserver serves the internal channel protocol (package
// channelapi describes it) on core's side: the route table (routes.go),
// decoding requests and the auth middleware (server.go), the business
// layer behind them (package app, through Service), the one mapping of its
// errors to the protocol's answers (errors.go), and every conversion
// between the wire's types and app's (convert.go).
package channelserver
