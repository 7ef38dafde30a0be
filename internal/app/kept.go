package app

import (
	"context"

	"github.com/google/uuid"
)

// Answers kept until the database changes. Reading a page of the library
// from the database and encoding it costs milliseconds; giving the same
// bytes again costs microseconds. An answer is kept under the tenant's
// library mark (store.LibraryMark) taken before it was read, and given
// again only while the mark has not moved: on SQLite while nothing at all
// was committed (store.ChangeMark), on PostgreSQL while nothing the
// tenant's listing shows was (its library version, on every replica).
// A token's tenant is kept under store.ChangeMark where there is one
// (SQLite), and read with the library version in one query elsewhere.

// Bounds of the kept answers: a few pages per tenant of a handful of
// tenants, 8 MiB in all; a page of 100 posts with their graphs is a few
// hundred KiB.
const (
	keptAnswers     = 128
	keptAnswerBytes = 8 << 20
	keptAnswerMax   = 2 << 20
	keptTokens      = 1024
)

type keptKey struct {
	tenant uuid.UUID
	key    string
}

type keptAnswer struct {
	mark uint64
	body []byte
}

type keptPrincipal struct {
	mark uint64
	p    Principal
}

// KeptAnswer gives the bytes build made earlier for the principal's
// tenant's key when nothing its library listing shows was committed since;
// otherwise it calls build and keeps what it made. key must name everything
// the answer depends on besides the tenant and its library (its
// parameters, its language). The mark is the one read when p was
// authenticated, else read now. The bytes are shared: the caller writes
// them out and never changes them.
func (a *App) KeptAnswer(ctx context.Context, p Principal, key string, build func(ctx context.Context) ([]byte, error)) ([]byte, error) {
	tenantID := p.TenantID
	mark, ok := p.libraryMark, p.markOK
	if !ok {
		mark, ok = a.store.LibraryMark(ctx, tenantID)
	}
	k := keptKey{tenant: tenantID, key: key}
	if ok {
		if e, hit := a.answers.get(k); hit && e.mark == mark {
			return e.body, nil
		}
	}
	body, err := build(ctx)
	if err != nil || !ok || len(body) > keptAnswerMax {
		return body, err
	}
	a.answers.put(k, keptAnswer{mark: mark, body: body})
	return body, nil
}

// keptPrincipalOf is the principal of a token digest authenticated since
// the last commit, if any.
func (a *App) keptPrincipalOf(ctx context.Context, digest []byte) (p Principal, mark uint64, markOK, hit bool) {
	mark, markOK = a.store.ChangeMark(ctx)
	if !markOK {
		return Principal{}, 0, false, false
	}
	e, ok := a.principals.get(string(digest))
	if !ok || e.mark != mark {
		return Principal{}, mark, true, false
	}
	return e.p, mark, true, true
}
