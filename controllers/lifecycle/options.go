package lifecycle

import (
	"flag"
	"time"
)

// Options configures the lifecycle controller.
type Options struct {
	// StallAfter is how long a transition may wait for a required consumer
	// before the PodNetwork reports Degraded=True (TransitionStalled).
	StallAfter time.Duration
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{StallAfter: 10 * time.Minute}
}

// BindFlags registers the lifecycle flags.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.DurationVar(&o.StallAfter, "stall-after", o.StallAfter,
		"How long a range transition may wait for a required consumer before PodNetwork reports Degraded (TransitionStalled).")
}
