package adapterapi

import (
	"context"
	"errors"
	"fmt"
	"io"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// MediaStream is a medium an adapter streams (ReadMedia), read like an
// HTTP body: chunk by chunk as they arrive, never whole. A typed adapter
// error in the stream comes out of Read as *Error.
type MediaStream struct {
	adapter *Adapter
	stream  adapterv1.Adapter_ReadMediaClient
	cancel  context.CancelFunc
	buf     []byte
	done    bool
	// Mime and Size are what the first chunk said ("" and 0: unknown).
	Mime string
	Size int64
}

// ReadMedia asks an adapter's provider for the bytes of a medium it gave
// a stream_ref for, with the credential of the capture that fetched it.
// The first chunk is read before it returns, so an adapter's refusal
// comes back here as *Error. Close ends the stream.
func (r *Registry) ReadMedia(ctx context.Context, adapterID, provider string, credential []byte, ref string) (*MediaStream, error) {
	a, ok := r.Get(adapterID)
	if !ok {
		return nil, &Error{Adapter: adapterID, Code: adapterv1.ErrorCode_ERROR_CODE_UNAVAILABLE, Retryable: true,
			Message: "this adapter is not configured on this instance"}
	}
	p, ok := a.d.providers[provider]
	if !ok {
		return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_INVALID_REQUEST,
			Message: fmt.Sprintf("has no provider %q", provider)}
	}
	if !hasCapability(p, adapterv1.CapMediaStream, 0) {
		return nil, &Error{Adapter: a.ID(), Code: adapterv1.ErrorCode_ERROR_CODE_UNSUPPORTED,
			Message: fmt.Sprintf("provider %s cannot stream media (no %s capability)", p.GetId(), adapterv1.CapMediaStream)}
	}
	sctx, cancel := context.WithCancel(ctx)
	st, err := a.client.ReadMedia(sctx, &adapterv1.ReadMediaRequest{ProviderId: provider, Credential: credential, StreamRef: ref})
	if err != nil {
		cancel()
		return nil, a.callError("read media", adapterv1.CapMediaStream, err)
	}
	m := &MediaStream{adapter: a, stream: st, cancel: cancel}
	first, err := m.next()
	if err != nil && !errors.Is(err, io.EOF) {
		cancel()
		return nil, err
	}
	if first != nil {
		m.Mime, m.Size = first.GetMime(), first.GetSize()
	}
	return m, nil
}

// next receives one chunk into the buffer.
func (m *MediaStream) next() (*adapterv1.MediaChunk, error) {
	if m.done {
		return nil, io.EOF
	}
	c, err := m.stream.Recv()
	if errors.Is(err, io.EOF) {
		m.done = true
		return nil, io.EOF
	}
	if err != nil {
		m.done = true
		return nil, m.adapter.callError("read media", adapterv1.CapMediaStream, err)
	}
	if pe := c.GetError(); pe != nil {
		m.done = true
		return nil, fromProto(m.adapter.ID(), pe)
	}
	m.buf = c.GetData()
	return c, nil
}

// Read reads the medium's bytes in order.
func (m *MediaStream) Read(p []byte) (int, error) {
	for len(m.buf) == 0 {
		if _, err := m.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, m.buf)
	m.buf = m.buf[n:]
	return n, nil
}

// Close ends the stream.
func (m *MediaStream) Close() error {
	m.cancel()
	return nil
}
