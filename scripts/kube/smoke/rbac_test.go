package smoke

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func (c *cluster) allowListPods(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "list-pods"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}}}}
	if _, err := c.cs.RbacV1().Roles(c.ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "list-pods"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "list-pods"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: c.ns}}}
	if _, err := c.cs.RbacV1().RoleBindings(c.ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func mustMilli(m int64) *resource.Quantity { return resource.NewMilliQuantity(m, resource.DecimalSI) }
