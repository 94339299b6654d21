/*
Copyright 2026 The podnetwork-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package chaos

import (
	"fmt"
	"time"

	"podnetwork.io/operator/test/chaos/faultproxy"
)

// Config is one chaos run. Everything random in it derives from Seed.
type Config struct {
	// Name is "short" or "long" (the report says which).
	Name string
	Seed int64

	// FaultWindow is how long faults are injected, node waves run and
	// ranges are edited; then everything stops and the run waits (up to
	// RecoverTimeout) for the system to settle.
	FaultWindow    time.Duration
	RecoverTimeout time.Duration

	// Nodes is the most nodes that exist at once; Waves node waves each
	// create up to Nodes and delete a share of them.
	Nodes int
	Waves int
	// NodeMaskSize is the block size of every range (the ranges are /16s).
	NodeMaskSize int32
	// RecycleDelaySeconds is the PodNetwork's quarantine.
	RecycleDelaySeconds int32

	// Process faults over the window, at seeded random moments.
	LeaderKills       int
	StandbyKills      int
	LeaderPauses      int
	APIServerRestarts int
	EtcdRestarts      int

	// Proxy configures the faults on the operators' API requests (its
	// Seed is set from Seed).
	Proxy faultproxy.Config

	// ConsumerMaxDelay bounds the random delay before a consumer
	// acknowledges a phase.
	ConsumerMaxDelay time.Duration

	// Kwok runs kwok for the nodes (Ready conditions and heartbeats);
	// ControllerManager runs kube-controller-manager's node lifecycle and
	// garbage collector controllers.
	Kwok              bool
	ControllerManager bool
	// KwokHeartbeat, when set, replaces the 20 to 25 seconds between two
	// heartbeats of a kwok node by KwokHeartbeat to 1.5 times it, and
	// kube-controller-manager's node monitor grace period by three times
	// it, so that nodes stay Ready.
	KwokHeartbeat time.Duration
}

// Leader election timings of the operators under test: short, so a
// failover takes seconds (the defaults are 15s, 10s and 2s).
const (
	LeaseDuration = 4 * time.Second
	RenewDeadline = 3 * time.Second
	RetryPeriod   = 1 * time.Second
)

// Short is the configuration `make chaos-short` (and CI) runs: every fault
// kind, every code path, fixed seeds, about a minute of faults. Its /23
// blocks are 128 per /16 range, 384 in a, b and c together, fewer than the
// run assigns (540 to 720): the never-used blocks run out and freed ones are
// reused, many after a fail-over (ReuseProblems requires both); six waves,
// 12.5s apart, longer than the recycle delay, so the blocks one wave frees
// are reusable by the next (with four, seed 1 reused as few as 24). While c
// is out of the spec, a and b hold 256, so some nodes wait for c to return.
func Short(seed int64) Config {
	return Config{
		Name:                "short",
		Seed:                seed,
		FaultWindow:         75 * time.Second,
		RecoverTimeout:      90 * time.Second,
		Nodes:               300,
		Waves:               6,
		NodeMaskSize:        23,
		RecycleDelaySeconds: 10,
		LeaderKills:         4,
		StandbyKills:        2,
		LeaderPauses:        2,
		APIServerRestarts:   2,
		EtcdRestarts:        1,
		Proxy:               proxyFaults(),
		ConsumerMaxDelay:    3 * time.Second,
		Kwok:                true,
		ControllerManager:   true,
	}
}

// Long is the acceptance run: 5,000 nodes, 100 leader kills, 10 apiserver
// and 5 etcd restarts. It is not part of CI.
func Long(seed int64) Config {
	c := Short(seed)
	c.Name = "long"
	c.FaultWindow = 25 * time.Minute
	c.RecoverTimeout = 5 * time.Minute
	c.Nodes = 5000
	c.Waves = 10
	c.NodeMaskSize = 28
	c.LeaderKills = 110 // a kill finds no leader when it comes during a long apiserver outage
	c.StandbyKills = 20
	c.LeaderPauses = 10
	c.APIServerRestarts = 10
	c.EtcdRestarts = 5
	c.ConsumerMaxDelay = 5 * time.Second
	// At 5,000 nodes kwok's default heartbeats are about 220 node status
	// writes a second, which every watcher decodes: more than 2 cores can
	// spare beside what is under test. Every 2 to 3 minutes: about 35.
	c.KwokHeartbeat = 2 * time.Minute
	return c
}

// proxyFaults are the request faults of both configurations: errors on
// 8% of requests (429, 500, 503 before or after the apiserver acted,
// resets before or after), up to 250ms latency on a fifth, and half the
// watches cut after 2 to 30 seconds. The latency stays well below
// LeaseDuration-RenewDeadline: a write a leader sent while its lease was
// fresh must reach the apiserver before another replica can take over.
func proxyFaults() faultproxy.Config {
	return faultproxy.Config{
		ErrorRate:    0.08,
		LatencyRate:  0.2,
		MaxLatency:   250 * time.Millisecond,
		WatchCutRate: 0.5,
		MinWatchCut:  2 * time.Second,
		MaxWatchCut:  30 * time.Second,
	}
}

// ForName returns the named configuration.
func ForName(name string, seed int64) (Config, error) {
	switch name {
	case "short":
		return Short(seed), nil
	case "long":
		return Long(seed), nil
	}
	return Config{}, fmt.Errorf("unknown configuration %q (short or long)", name)
}
