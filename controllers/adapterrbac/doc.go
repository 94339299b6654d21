// Package adapterrbac holds only the RBAC markers of the kube-proxy and
// flannel adapters for the namespaced objects they manage (ConfigMaps,
// DaemonSets and their Pods). controller-gen renders them into their own
// ClusterRole (config/rbac/adapters), which the chart binds with a RoleBinding
// in each enabled adapter's namespace only: an operator without adapters,
// or with them, never gets ConfigMap or DaemonSet rights anywhere else.
//
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=daemonsets,verbs=get;list;watch;patch
package adapterrbac
