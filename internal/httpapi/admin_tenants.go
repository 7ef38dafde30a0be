package httpapi

// tenantAdmin is the operator API for tenants, tokens, usage and the audit
// log.
type tenantAdmin interface{}

// tenantAdminRoutes are the routes of tenantAdmin.
func (d Deps) tenantAdminRoutes() []route { return nil }
