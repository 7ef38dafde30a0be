// Package importer reads a checked capsule into a tenant's archive through
// the business layer: idempotent by collection id, media verified and
// deduplicated, the database part in one transaction.
package importer

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/google/uuid"

	"github.com/monitorhq/monitor/internal/app"
	"github.com/monitorhq/monitor/internal/capsule"
	"github.com/monitorhq/monitor/internal/capsule/check"
	"github.com/monitorhq/monitor/internal/chain"
)

// Options control an import.
type Options struct {
	TenantID uuid.UUID
	// DryRun reports what would happen and writes nothing.
	DryRun bool
	// IncludePrivate also imports collections marked private; without it
	// they are left out and reported.
	IncludePrivate bool
	// Progress, when set, is called as media are stored.
	Progress func(done, total int)
}

// Report is what an import did, with the collections it left out.
type Report struct {
	app.ImportReport
	// Private lists the private collections left out.
	Private []app.ImportOutcome
}

// Import imports a capsule that check found free of errors.
func Import(ctx context.Context, a *app.App, src *capsule.Source, res *check.Result, opts Options) (Report, error) {
	var rep Report
	if err := res.Err(); err != nil {
		return rep, fmt.Errorf("nothing was imported: %w", err)
	}
	files := map[string]string{} // sha256 → path
	var items []app.ImportCollection
	for _, e := range res.Entries {
		c := e.Collection
		id := uuid.MustParse(c.ID) // check verified it
		if c.Visibility == "private" && !opts.IncludePrivate {
			rep.Private = append(rep.Private, app.ImportOutcome{ID: id, Label: e.Path, Reason: "private; add --include-private to import it"})
			continue
		}
		for _, f := range c.Files() {
			if _, ok := files[f.SHA256]; !ok {
				files[f.SHA256] = f.File
			}
		}
		if probs, _ := ChainProblems(e.Path, &c); len(probs) > 0 {
			return rep, fmt.Errorf("nothing was imported: %s; the capsule was changed after it was exported (run `monitor check --verify` on it for the full list)", probs[0])
		}
		items = append(items, ToImport(e.Path, &c))
	}
	open := func(sum string) (io.ReadCloser, error) {
		p, ok := files[sum]
		if !ok {
			return nil, fmt.Errorf("no file in the capsule has SHA-256 %s", sum)
		}
		return src.OpenFile(p)
	}
	var err error
	rep.ImportReport, err = a.ImportCollections(ctx, opts.TenantID, items, app.ImportOptions{DryRun: opts.DryRun, Open: open, Progress: opts.Progress})
	return rep, err
}

// ToImport turns a collection file into what the business layer imports:
// its versions with their links, in the order of the file's chain when it
// has one (the current version is then marked, as it may be an earlier
// link: content that changed back), so the import rebuilds the same chain.
func ToImport(path string, c *capsule.Collection) app.ImportCollection {
	it := toImport(path, c)
	ch := c.Chain
	if ch == nil || ch.Version != chain.Version || len(ch.Revisions) == 0 {
		return it
	}
	byContent := map[string]int{}
	for i, l := range ch.Revisions {
		byContent[l.ContentHash] = i
	}
	pos := make([]int, len(it.Revisions))
	for i := range it.Revisions {
		r := &it.Revisions[i]
		pos[i] = len(ch.Revisions) + i // not in the chain: after it, where the import refuses it
		hash, err := app.ContentHash(*r, c.URL)
		if err != nil {
			continue
		}
		idx, ok := byContent[hash]
		if !ok {
			r.Link = &app.ImportLink{ChainHash: "not-in-chain"}
			continue
		}
		l := ch.Revisions[idx]
		pos[i] = idx
		r.Link = &app.ImportLink{PrevHash: l.PrevHash, ChainHash: l.ChainHash, Raw: l.Raw, AdapterID: l.AdapterID, AdapterVersion: l.AdapterVersion}
	}
	it.Revisions[len(it.Revisions)-1].Current = true
	order := make([]int, len(it.Revisions))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return pos[a] - pos[b] })
	sorted := make([]app.ImportRevision, len(order))
	for i, o := range order {
		sorted[i] = it.Revisions[o]
	}
	it.Revisions = sorted
	return it
}

// toImport is a collection file's versions as the business layer imports
// them, in the file's order (history oldest first, then the current one).
func toImport(path string, c *capsule.Collection) app.ImportCollection {
	it := app.ImportCollection{
		ID: uuid.MustParse(c.ID), Platform: c.Platform, EntityType: c.Kind, ObjectScope: c.ObjectScope, ExternalID: c.ExternalID,
		SourceURL: c.URL, Visibility: c.Visibility, ClaimedVisibility: c.ClaimedVisibility, SavedAt: c.SavedAt, Label: path,
	}
	for _, h := range c.History {
		it.Revisions = append(it.Revisions, revision(h))
	}
	captured := c.CapturedAt
	if captured.IsZero() {
		captured = c.SavedAt
	}
	it.Revisions = append(it.Revisions, revision(capsule.Revision{
		CapturedAt: captured, PublishedAt: c.PublishedAt, AuthorName: c.Author.Name, Summary: c.Summary,
		TextKind: c.TextKind, Media: c.Media, Graph: c.Graph, Text: c.Text,
	}))
	return it
}

func revision(r capsule.Revision) app.ImportRevision {
	out := app.ImportRevision{CapturedAt: r.CapturedAt, Text: r.Text, TextKind: r.TextKind, Summary: r.Summary,
		AuthorName: r.AuthorName, PublishedAt: r.PublishedAt, Graph: app.ImportGraph{Root: r.Graph.Root}}
	for _, m := range r.Media {
		out.Media = append(out.Media, app.ImportMedia{SHA256: m.SHA256, Kind: m.Kind, Mime: m.Mime, Size: m.Size, Width: m.Width,
			Height: m.Height, DurationMS: m.DurationMS, Alt: m.Alt, Sensitive: m.Sensitive, SourceURL: m.SourceURL})
	}
	for _, e := range r.Graph.Entities {
		ie := app.ImportEntity{Key: e.Key, Type: e.Type, ExternalID: e.ExternalID, Data: e.Data}
		for _, res := range e.Resources {
			ie.Resources = append(ie.Resources, app.ImportResource{Purpose: res.Purpose, SHA256: res.SHA256, Kind: res.Kind,
				Mime: res.Mime, Size: res.Size})
		}
		out.Graph.Entities = append(out.Graph.Entities, ie)
	}
	for _, rel := range r.Graph.Relations {
		out.Graph.Relations = append(out.Graph.Relations, app.RelationView{From: rel.From, Relation: rel.Relation, To: rel.To})
	}
	return out
}
