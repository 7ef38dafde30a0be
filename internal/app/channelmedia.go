package app

import (
	"context"
	"io"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/store"
)

// This file holds the media of a channel: the bytes a work item may send,
// and the cache of remote references to media already sent through a
// channel account (Telegram's file_id), so the same file is not uploaded
// twice.

// ChannelMedia opens a media file of the item's delivery (the capture's
// revision) or of the tenant's saved collections.
func (a *App) ChannelMedia(ctx context.Context, id uuid.UUID, owner, sha256 string) (io.ReadCloser, MediaFile, error) {
	if !IsSHA256(sha256) {
		return nil, MediaFile{}, badRequest("media are named by their SHA-256 as 64 lowercase hex digits, not %q", clip(sha256, 80))
	}
	j, err := a.ownedJob(ctx, id, owner)
	if err != nil {
		return nil, MediaFile{}, err
	}
	if j.sub != nil {
		c, err := a.store.CaptureGet(j.ctx, j.sub.CaptureID)
		if err != nil {
			return nil, MediaFile{}, err
		}
		if c.RevisionID != nil {
			b, err := a.store.BlobForRevision(j.ctx, *c.RevisionID, sha256)
			switch {
			case err == nil:
				rc, _, err := a.blob.Get(j.ctx, b.ObjectKey, nil)
				if err != nil {
					return nil, MediaFile{}, err
				}
				return rc, MediaFile{SHA256: b.SHA256, Mime: b.Mime, Size: b.Size}, nil
			case !isNotFound(err):
				return nil, MediaFile{}, err
			}
		}
	}
	rc, mf, err := a.OpenMedia(j.ctx, j.tenantID, sha256, nil)
	if err != nil {
		return nil, MediaFile{}, err
	}
	return rc, mf, nil
}

// ChannelCacheGet finds the remote reference of a media file sent through
// a channel account before; nothing cached is ErrNotFound.
func (a *App) ChannelCacheGet(ctx context.Context, k ChannelCacheKey) (remoteID string, err error) {
	key, err := cacheKey(k)
	if err != nil {
		return "", err
	}
	remote, err := a.store.MediaCacheGet(ctx, key)
	if isNotFound(err) {
		return "", errorf(ErrNotFound, "not cached")
	}
	return remote, err
}

// ChannelCachePut stores the remote reference of a sent media file.
func (a *App) ChannelCachePut(ctx context.Context, k ChannelCacheKey, remoteID string) error {
	key, err := cacheEntry(k, remoteID)
	if err != nil {
		return err
	}
	return a.store.InTx(ctx, func(tx *store.Tx) error { return tx.MediaCachePut(ctx, key, remoteID) })
}

// ChannelCacheDrop removes the remote reference of a media file the
// platform declared invalid, unless another one was stored meanwhile.
func (a *App) ChannelCacheDrop(ctx context.Context, k ChannelCacheKey, remoteID string) error {
	key, err := cacheEntry(k, remoteID)
	if err != nil {
		return err
	}
	return a.store.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.MediaCacheDrop(ctx, key, remoteID)
		return err
	})
}

func cacheKey(k ChannelCacheKey) (store.MediaCacheKey, error) {
	switch {
	case k.ChannelKind == "" || len(k.ChannelKind) > 32:
		return store.MediaCacheKey{}, badRequest("channel_kind must be 1 to 32 characters")
	case k.AccountID == "" || len(k.AccountID) > 64:
		return store.MediaCacheKey{}, badRequest("account_id must be 1 to 64 characters")
	case !IsSHA256(k.SHA256):
		return store.MediaCacheKey{}, badRequest("sha256 must be 64 lowercase hex digits")
	case k.Representation == "" || len(k.Representation) > 32:
		return store.MediaCacheKey{}, badRequest("representation must be 1 to 32 characters")
	}
	return store.MediaCacheKey{ChannelKind: k.ChannelKind, AccountID: k.AccountID, SHA256: k.SHA256, Representation: k.Representation}, nil
}

// cacheEntry checks a key and the remote reference stored under it.
func cacheEntry(k ChannelCacheKey, remoteID string) (store.MediaCacheKey, error) {
	if remoteID == "" || len(remoteID) > 1024 {
		return store.MediaCacheKey{}, badRequest("remote_id must be 1 to 1024 characters")
	}
	return cacheKey(k)
}
