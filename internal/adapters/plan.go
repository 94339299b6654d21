package adapters

// Plan is what a component package (kubeproxy, flannel) decided for the
// component's current configuration.
type Plan struct {
	// RangeIndependent, when not empty, says why the component's
	// configuration does not depend on the pod ranges. The adapter then
	// writes nothing, restarts nothing and acknowledges every phase at once
	// with this message.
	RangeIndependent string
	// Config is the desired content of the ConfigMap key: the current content
	// with the managed fields set. It equals the current content when nothing
	// has to change.
	Config string
	// Summary names the managed values for messages, for example
	// "clusterCIDR 10.244.0.0/15".
	Summary string
	// Decision holds the covering prefixes, the rejected Pending ranges and
	// the problems to report.
	Decision Decision
}
