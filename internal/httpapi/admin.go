package httpapi

import (
	"net/http"
)

// AdminService is the operator API behind /v1/admin/...; *app.App
// implements it. Its parts live beside their routes.
type AdminService interface {
	tenantAdmin
	opsAdmin
	watchAdmin
	joinAdmin
}

// requireAdmin lets only admin tokens through; it runs after authenticate.
func (d Deps) requireAdmin(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !principal(r).Admin {
			closeUnreadBody(w, r)
			writeProblem(w, Problem{Type: ProblemForbidden, Title: "Admins only", Status: http.StatusForbidden,
				Detail: "this operation needs an admin token (monitor admin token create --tenant NAME --admin)"})
			return
		}
		next(w, r)
	}
}

// adminRoutes are the /v1/admin routes, all for admin tokens only.
func (d Deps) adminRoutes() []route {
	return append(d.tenantAdminRoutes(), d.opsAdminRoutes()...)
}

// actor names a request's principal in the audit log.
func actor(r *http.Request) string {
	p := principal(r)
	return "token:" + p.TokenID.String() + " (" + p.TenantName + ")"
}
