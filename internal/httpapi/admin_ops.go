package httpapi

// opsAdmin is the operator API for settings, events and the error log.
type opsAdmin interface{}

// opsAdminRoutes are the routes of opsAdmin.
func (d Deps) opsAdminRoutes() []route { return nil }
