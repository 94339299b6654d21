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
	"strings"
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
	// NodeMaskSize is the block size of every IPv4 range (the ranges are
	// /16s); an IPv6 twin has as many /64 blocks (ranges.go).
	NodeMaskSize int32
	// RecycleDelaySeconds is the PodNetwork's quarantine at the start.
	RecycleDelaySeconds int32
	// ReuseOldestAt, when set, is the fraction of the fault window at which
	// the PodNetwork switches to whenExhausted ReuseOldest; ZeroDelayAt,
	// when set, the fraction at which it switches back to Wait with
	// recycleDelaySeconds 0. recycle-delay judges a reuse by the policy the
	// PodNetwork had when the reuse landed: none under ReuseOldest, any gap
	// under delay 0.
	ReuseOldestAt, ZeroDelayAt float64

	// Families are the IP families of the ranges: IPv4, IPv6 or DualStack
	// (every range and its IPv6 twin; a tenth of the nodes are IPv4-only
	// and a tenth IPv6-only, selected by the ranges' nodeSelectors, the
	// rest get both).
	Families Families
	// Adapters runs the kube-proxy and flannel adapters (two more
	// required consumers) against ConfigMaps and DaemonSets shaped like
	// kubeadm's and flannel's; the DaemonSets select AdapterNodes of the
	// node names (a few dozen, so the pods stay cheap at 5,000 nodes),
	// which kube-controller-manager's DaemonSet controller, kube-scheduler
	// and kwok run. Rollouts churn with the nodes.
	Adapters     bool
	AdapterNodes int
	// Autoscaler sets spec.autoscaling to Auto with a pool per family
	// (autoscale.go) serving a tenth of the nodes: it adds, expands,
	// consolidates and gives back ranges while everything else goes on.
	Autoscaler bool

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
// kind, every code path, fixed seeds, about a minute of faults. Dual-stack
// (IPv4, IPv6 and dual-stack nodes), the adapters on a few nodes and the
// autoscaler in Auto mode, at little cost in time: a run lasts as long as
// its fault window whatever it holds.
//
// Its /23 blocks are 128 per /16 range, 384 in a, b and c together (as
// many /64s in their IPv6 twins), far fewer than the blocks of each family
// a run assigns (about 700): the never-used blocks run out and freed ones
// are reused, many after a fail-over (ReuseProblems requires both); six
// waves, 12.5s apart, longer than the recycle delay, so the blocks one wave
// frees are reusable by the next. While c is out of the spec, a and b hold
// 256 blocks a family, fewer than the 272 nodes of a family a full wave of
// 340 brings (a tenth of the nodes hold only the other family, a tenth take
// the autoscaler's pools first). The first four waves run under
// whenExhausted Wait with a 10s delay (recycle-delay and the rebuild's
// quarantine are judged there, and the seeded bugs are caught there), the
// fifth, full, under ReuseOldest (every free block is quarantined: early
// reuses are legal and counted), the sixth with recycleDelaySeconds 0.
func Short(seed int64) Config {
	return Config{
		Name:                "short",
		Seed:                seed,
		FaultWindow:         75 * time.Second,
		RecoverTimeout:      90 * time.Second,
		Nodes:               340,
		Waves:               6,
		NodeMaskSize:        23,
		RecycleDelaySeconds: 10,
		ReuseOldestAt:       0.58,
		ZeroDelayAt:         0.78,
		Families:            DualStack,
		Adapters:            true,
		AdapterNodes:        20,
		Autoscaler:          true,
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
// and 5 etcd restarts, dual-stack, the adapters on 50 node names and the
// autoscaler on. It is not part of CI.
func Long(seed int64) Config {
	c := Short(seed)
	c.Name = "long"
	c.FaultWindow = 25 * time.Minute
	c.RecoverTimeout = 5 * time.Minute
	c.Nodes = 5000
	c.Waves = 10
	c.NodeMaskSize = 28
	c.AdapterNodes = 50
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

// Features says in words what the run holds besides the faults, for the
// report: the families, the adapters, the autoscaler and the allocation
// policy over the window.
func (c Config) Features() string {
	var parts []string
	switch c.Families {
	case DualStack:
		parts = append(parts, "dual-stack ranges (IPv4-only, IPv6-only and dual-stack nodes)")
	case IPv6:
		parts = append(parts, "IPv6 ranges")
	default:
		parts = append(parts, "IPv4 ranges")
	}
	if c.Adapters {
		adapterNames := 0
		for i := range poolSize(c) {
			if nodeLabels(c, i)[adapterLabel] != "" {
				adapterNames++
			}
		}
		parts = append(parts, fmt.Sprintf("kube-proxy and flannel adapters (DaemonSets on %d node names)", adapterNames))
	}
	if c.Autoscaler {
		parts = append(parts, "autoscaler Auto")
	}
	policy := fmt.Sprintf("Wait, delay %ds", c.RecycleDelaySeconds)
	if c.ReuseOldestAt > 0 {
		policy += fmt.Sprintf("; ReuseOldest from %.0f%%", 100*c.ReuseOldestAt)
	}
	if c.ZeroDelayAt > 0 {
		policy += fmt.Sprintf("; Wait, delay 0 from %.0f%%", 100*c.ZeroDelayAt)
	}
	return strings.Join(append(parts, policy), ", ")
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
