package main

import (
	"fmt"
	"time"

	"podnetwork.io/operator/test/cluster"
)

// start is when the demo began; every line is stamped relative to it.
var start = time.Now()

// say prints one step of the story with the time since the demo started.
func say(format string, args ...any) {
	fmt.Printf("[%6.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
}

// story walks the admin's story. Until the lifecycle controller lands it only
// shows that the API is served.
func story(c *cluster.Cluster) error {
	_ = c
	say("the lifecycle story is not implemented yet: this demo only starts the control plane with the CRDs")
	return nil
}
