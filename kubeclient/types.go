package kubeclient

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// Short names for the API's types in killers' table.
type (
	corev1Pod                = corev1.Pod
	corev1ConfigMap          = corev1.ConfigMap
	corev1Secret             = corev1.Secret
	corev1Service            = corev1.Service
	corev1ServiceAccount     = corev1.ServiceAccount
	rbacv1Role               = rbacv1.Role
	rbacv1RoleBinding        = rbacv1.RoleBinding
	rbacv1ClusterRole        = rbacv1.ClusterRole
	rbacv1ClusterRoleBinding = rbacv1.ClusterRoleBinding
)
