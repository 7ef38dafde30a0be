package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// A schema is what a database's catalogue says it holds: tables with their
// columns, indexes, views and triggers. Comparing a database's schema with
// the one a fresh database gets from the same migrations shows anything
// added or removed by hand, such as a trigger slipped into a snapshot.

// SchemaObject is one table, index, view or trigger of a database.
type SchemaObject struct {
	// Type is "table", "index", "view" or "trigger".
	Type string
	// Name is the object's name.
	Name string
	// Table is the table an index or trigger belongs to (a table's or
	// view's own name).
	Table string
	// SQL is the statement that created it, with runs of white space
	// folded to one space; empty for indexes SQLite makes itself.
	SQL string
	// Columns are a table's columns in order.
	Columns []SchemaColumn
}

// SchemaColumn is one column of a table.
type SchemaColumn struct {
	Name    string
	Type    string
	NotNull bool
	Default string
	// PK is the column's position in the primary key (0: not part of it).
	PK int
}

// String describes the column as a person would write it.
func (c SchemaColumn) String() string {
	s := c.Name + " " + c.Type
	if c.NotNull {
		s += " NOT NULL"
	}
	if c.Default != "" {
		s += " DEFAULT " + c.Default
	}
	return s
}

// Schema is a database's objects, sorted by type and name.
type Schema struct {
	Objects []SchemaObject
}

// SchemaGet reads the schema of the embedded database. PostgreSQL's is not
// read (snapshots, its only use, are for SQLite).
func (s *Store) SchemaGet(ctx context.Context) (Schema, error) {
	if s.d.name() != "sqlite" {
		return Schema{}, ErrSnapshotUnsupported
	}
	return schemaGetSQLite(ctx, s.read)
}

// schemaGetSQLite reads sqlite_schema and each table's columns. The
// statistics tables ANALYZE and PRAGMA optimize create are left out: they
// come and go with use, and hold no code.
func schemaGetSQLite(ctx context.Context, db *sql.DB) (Schema, error) {
	var out Schema
	rows, err := db.QueryContext(ctx, `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema
		WHERE NOT (type = 'table' AND name LIKE 'sqlite\_stat%' ESCAPE '\')
		ORDER BY type, name`)
	if err != nil {
		return out, fmt.Errorf("store: read schema: %w", err)
	}
	for rows.Next() {
		var o SchemaObject
		if err := rows.Scan(&o.Type, &o.Name, &o.Table, &o.SQL); err != nil {
			rows.Close()
			return out, fmt.Errorf("store: read schema: %w", err)
		}
		o.SQL = strings.Join(strings.Fields(o.SQL), " ")
		out.Objects = append(out.Objects, o)
	}
	if err := rows.Close(); err != nil {
		return out, fmt.Errorf("store: read schema: %w", err)
	}
	for i := range out.Objects {
		o := &out.Objects[i]
		if o.Type != "table" {
			continue
		}
		cols, err := db.QueryContext(ctx, `SELECT name, type, "notnull", coalesce(dflt_value, ''), pk FROM pragma_table_xinfo($1) ORDER BY cid`, o.Name)
		if err != nil {
			return out, fmt.Errorf("store: read the columns of %s: %w", o.Name, err)
		}
		for cols.Next() {
			var c SchemaColumn
			if err := cols.Scan(&c.Name, &c.Type, &c.NotNull, &c.Default, &c.PK); err != nil {
				cols.Close()
				return out, fmt.Errorf("store: read the columns of %s: %w", o.Name, err)
			}
			o.Columns = append(o.Columns, c)
		}
		if err := cols.Close(); err != nil {
			return out, fmt.Errorf("store: read the columns of %s: %w", o.Name, err)
		}
	}
	return out, nil
}

// SchemaDifference is one way a database's schema departs from the one
// its migrations create.
type SchemaDifference struct {
	// Object is the table, index, view or trigger concerned.
	Object SchemaObject
	// Kind is "extra" (the database has it, the migrations do not create
	// it), "missing" (the other way round), "changed" (a different
	// statement creates it), or, for a table, "extra column", "missing
	// column" or "changed column".
	Kind string
	// Column is the column concerned; Want is its definition in the
	// migrations' schema, for "changed column".
	Column, Want SchemaColumn
}

// Describe says what the difference is; want names the schema compared
// against, e.g. "migration 0007".
func (d SchemaDifference) Describe(want string) string {
	what := d.Object.Type + " " + d.Object.Name
	if (d.Object.Type == "index" || d.Object.Type == "trigger") && d.Object.Table != "" {
		what += " on " + d.Object.Table
	}
	switch d.Kind {
	case "extra":
		return fmt.Sprintf("its database has %s, which %s does not create", what, want)
	case "missing":
		return fmt.Sprintf("its database lacks %s, which %s creates", what, want)
	case "extra column":
		return fmt.Sprintf("its %s has column %s, which %s does not create", what, d.Column, want)
	case "missing column":
		return fmt.Sprintf("its %s lacks column %s, which %s creates", what, d.Column.Name, want)
	case "changed column":
		return fmt.Sprintf("its %s defines column %s, where %s creates %s", what, d.Column, want, d.Want)
	}
	return fmt.Sprintf("its %s is created by %q, not by the statement %s runs", what, abbreviate(d.Object.SQL, 200), want)
}

// SchemaCompare lists how got departs from want: objects only one of them
// has, then objects both have but define differently, triggers and views
// first. An empty list means the schemas are the same.
func SchemaCompare(got, want Schema) []SchemaDifference {
	key := func(o SchemaObject) string { return o.Type + " " + o.Name }
	wantBy := map[string]SchemaObject{}
	for _, o := range want.Objects {
		wantBy[key(o)] = o
	}
	gotBy := map[string]SchemaObject{}
	var out []SchemaDifference
	for _, o := range got.Objects {
		gotBy[key(o)] = o
		w, ok := wantBy[key(o)]
		if !ok {
			out = append(out, SchemaDifference{Object: o, Kind: "extra"})
			continue
		}
		if d, ok := objectChange(o, w); ok {
			out = append(out, d)
		}
	}
	for _, o := range want.Objects {
		if _, ok := gotBy[key(o)]; !ok {
			out = append(out, SchemaDifference{Object: o, Kind: "missing"})
		}
	}
	// Code that runs by itself matters most.
	rank := map[string]int{"trigger": 0, "view": 1, "table": 2, "index": 3}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Object.Type] < rank[out[j].Object.Type] })
	return out
}

// objectChange says how got, an object of the same type and name as want,
// differs from it.
func objectChange(got, want SchemaObject) (SchemaDifference, bool) {
	d := SchemaDifference{Object: got}
	if got.Type == "table" {
		wantCols := map[string]SchemaColumn{}
		for _, c := range want.Columns {
			wantCols[c.Name] = c
		}
		gotCols := map[string]bool{}
		for _, c := range got.Columns {
			gotCols[c.Name] = true
			w, ok := wantCols[c.Name]
			if !ok {
				d.Kind, d.Column = "extra column", c
				return d, true
			}
			if c != w {
				d.Kind, d.Column, d.Want = "changed column", c, w
				return d, true
			}
		}
		for _, c := range want.Columns {
			if !gotCols[c.Name] {
				d.Kind, d.Column = "missing column", c
				return d, true
			}
		}
	}
	if got.Table != want.Table || got.SQL != want.SQL {
		d.Kind = "changed"
		return d, true
	}
	return d, false
}

func abbreviate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
