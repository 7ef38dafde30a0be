package testkit

import (
	"context"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// RefusingPostgres is a fake PostgreSQL server that answers every
// connection's startup with one error, e.g. 28P01 (wrong password) — what a
// server with password authentication says, which the local test server
// (trust authentication) never does. It returns host:port.
func RefusingPostgres(t testing.TB, code, message string) string {
	t.Helper()
	lis, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	t.Cleanup(func() { _ = lis.Close() })
	go func() {
		for {
			conn, err := lis.Accept()
			if err != nil {
				return
			}
			go refuse(conn, code, message)
		}
	}()
	return lis.Addr().String()
}

func refuse(conn net.Conn, code, message string) {
	defer conn.Close()
	be := pgproto3.NewBackend(conn, conn)
	for {
		msg, err := be.ReceiveStartupMessage()
		if err != nil {
			return
		}
		switch msg.(type) {
		case *pgproto3.SSLRequest, *pgproto3.GSSEncRequest:
			if _, err := conn.Write([]byte{'N'}); err != nil {
				return
			}
			continue
		}
		be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: code, Message: message})
		_ = be.Flush()
		return
	}
}
