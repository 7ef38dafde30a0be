package adapterapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	adapterv1 "github.com/monitorhq/monitor/api/adapter/v1"
)

// adapterID is the form of adapter ids and entity type names' platform part.
var adapterID = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// described is a validated Describe answer with its compiled schemas.
type described struct {
	desc      *adapterv1.DescribeResponse
	providers map[string]*adapterv1.Provider
	schemas   map[string]*jsonschema.Schema
	rawSchema map[string]string
}

// validateDescribe checks one adapter's Describe answer: protocol major,
// id, hosts, providers, and that every entity schema compiles.
func validateDescribe(addr string, d *adapterv1.DescribeResponse) (*described, error) {
	if p := d.GetProtocol(); p.GetMajor() != adapterv1.ProtocolMajor {
		return nil, fmt.Errorf("adapter at %s speaks adapter.v1 protocol %d.%d; this monitor speaks %d.x",
			addr, p.GetMajor(), p.GetMinor(), adapterv1.ProtocolMajor)
	}
	id := d.GetAdapterId()
	if !adapterID.MatchString(id) {
		return nil, fmt.Errorf("adapter at %s has id %q; ids are 1–32 lowercase letters, digits, '_' or '-', starting with a letter", addr, id)
	}
	if len(d.GetHosts()) == 0 {
		return nil, fmt.Errorf("adapter %s at %s declares no hosts", id, addr)
	}
	for _, h := range d.GetHosts() {
		if h == "" || h != strings.ToLower(h) || strings.ContainsAny(h, "/:*@ ") {
			return nil, fmt.Errorf("adapter %s at %s declares host %q; hosts are lowercase names without ports or wildcards", id, addr, h)
		}
	}

	out := &described{
		desc:      d,
		providers: map[string]*adapterv1.Provider{},
		schemas:   map[string]*jsonschema.Schema{},
		rawSchema: map[string]string{},
	}
	for _, et := range d.GetEntityTypes() {
		name := et.GetName()
		if name == "" {
			return nil, fmt.Errorf("adapter %s declares an entity type without a name", id)
		}
		if _, dup := out.schemas[name]; dup {
			return nil, fmt.Errorf("adapter %s declares entity type %s twice", id, name)
		}
		sch, err := compileSchema(name, et.GetJsonSchema())
		if err != nil {
			return nil, fmt.Errorf("adapter %s: entity type %s: %w", id, name, err)
		}
		out.schemas[name] = sch
		out.rawSchema[name] = et.GetJsonSchema()
	}

	defaults := map[adapterv1.AuthMode]string{}
	for _, p := range d.GetProviders() {
		pid := p.GetId()
		if pid == "" {
			return nil, fmt.Errorf("adapter %s declares a provider without an id", id)
		}
		if _, dup := out.providers[pid]; dup {
			return nil, fmt.Errorf("adapter %s declares provider %s twice", id, pid)
		}
		if p.GetDefaultProvider() {
			if other, ok := defaults[p.GetAuthMode()]; ok {
				return nil, fmt.Errorf("adapter %s declares two default providers for %s: %s and %s", id, p.GetAuthMode(), other, pid)
			}
			defaults[p.GetAuthMode()] = pid
		}
		for _, t := range p.GetEntityTypes() {
			if _, ok := out.schemas[t]; !ok {
				return nil, fmt.Errorf("adapter %s: provider %s lists entity type %s, which the adapter does not declare", id, pid, t)
			}
		}
		out.providers[pid] = p
	}
	return out, nil
}

// noLoader refuses every external reference: entity schemas must be
// self-contained, and an adapter must not make core read files or URLs.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas must be self-contained; refusing to load %s", url)
}

func compileSchema(name, text string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	loc := "urn:monitor:entity:" + name
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("schema does not compile: %w", err)
	}
	return sch, nil
}

// hasCapability reports whether a provider declares name at major 1 with
// at least minor.
func hasCapability(p *adapterv1.Provider, name string, minor uint32) bool {
	for _, c := range p.GetCapabilities() {
		if c.GetName() == name && c.GetMajor() == 1 && c.GetMinor() >= minor {
			return true
		}
	}
	return false
}

// validationMessages flattens a schema validation error into sorted
// "location: message" lines.
func validationMessages(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var msgs []string
	seen := map[string]bool{}
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		loc := u.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		m := loc + ": " + u.Error.String()
		if !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	sort.Strings(msgs)
	if len(msgs) == 0 {
		return ve.Error()
	}
	return strings.Join(msgs, "; ")
}

// validateGraph checks a Fetch graph against the adapter's declared types:
// every entity's type is declared and its data follows the schema, keys are
// unique, the root and every relation endpoint exist, and resource indexes
// point at media of the response.
func validateGraph(adapter string, d *described, resp *adapterv1.FetchResponse) error {
	g := resp.GetGraph()
	if g == nil {
		return nil
	}
	keys := map[string]bool{}
	for _, e := range g.GetEntities() {
		key := e.GetKey()
		if key == "" {
			return contractError(adapter, "returned an entity without a key (type %s)", e.GetType())
		}
		if keys[key] {
			return contractError(adapter, "returned entity key %s twice", key)
		}
		keys[key] = true
		sch, ok := d.schemas[e.GetType()]
		if !ok {
			return contractError(adapter, "entity %s has type %q, which the adapter does not declare", key, e.GetType())
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(e.GetDataJson()))
		if err != nil || !json.Valid([]byte(e.GetDataJson())) {
			return contractError(adapter, "entity %s (%s): data is not valid JSON", key, e.GetType())
		}
		if err := sch.Validate(v); err != nil {
			return contractError(adapter, "entity %s (%s) breaks its schema: %s", key, e.GetType(), validationMessages(err))
		}
		for _, i := range e.GetResourceIndexes() {
			if int(i) >= len(resp.GetMedia()) {
				return contractError(adapter, "entity %s points at resource %d, but the response has %d media", key, i, len(resp.GetMedia()))
			}
		}
	}
	if len(g.GetEntities()) > 0 && !keys[g.GetRootKey()] {
		return contractError(adapter, "graph root %q is not one of its entities", g.GetRootKey())
	}
	for _, r := range g.GetRelations() {
		for _, end := range []string{r.GetFromKey(), r.GetToKey()} {
			if !keys[end] {
				return contractError(adapter, "relation %s -%s-> %s points at missing entity %s", r.GetFromKey(), r.GetName(), r.GetToKey(), end)
			}
		}
		if r.GetName() == "" {
			return contractError(adapter, "relation %s -> %s has no name", r.GetFromKey(), r.GetToKey())
		}
	}
	return nil
}
