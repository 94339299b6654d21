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

package main

import (
	"context"
	"fmt"
	"math/bits"
	"net/netip"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/controllers"
	"podnetwork.io/operator/controllers/nodeipam"
	"podnetwork.io/operator/test/framework/cluster"
)

// Allocator kinds.
const (
	kindLimit = "limit"
	kindKCM   = "kcm"
	kindOurs  = "ours"
)

// kcmWorkers is kube-controller-manager's cidrUpdateWorkers, which one limit
// client run matches (and the operator's default --node-ipam-workers).
const kcmWorkers = 30

// fewerWorkers is the operator's default --node-ipam-workers before issue 16
// raised it to kcmWorkers: one operator run and one limit client run keep
// it, to show what the worker count buys.
const fewerWorkers = 16

// oursDefaults are the operator's own defaults (--node-ipam-workers,
// --kube-api-qps, --kube-api-burst), read from the code so the table
// always names what "default" ran with.
var oursDefaults = controllers.DefaultOptions()

// oursWorkers is the operator's default --node-ipam-workers.
var oursWorkers = oursDefaults.NodeIPAM.Workers

// config is one allocator setting under test.
type config struct {
	kind string
	// qps and burst are the allocator's client limits; 0 keeps its
	// defaults (kube-controller-manager 20/30, the operator oursDefaults). The
	// limit client is never throttled.
	qps, burst int
	// writers is the limit client's number of concurrent PATCHes, or the
	// operator's --node-ipam-workers (0: its default).
	writers int
	// baseline runs the -baseline binary instead of the operator under test.
	baseline bool
}

func (c config) String() string {
	switch c.kind {
	case kindLimit:
		return fmt.Sprintf("limit, %d writers", c.writers)
	default:
		q, b := c.limits()
		s := fmt.Sprintf("%s %d/%d", c.kind, q, b)
		if c.qps == 0 {
			s += " (default)"
		}
		if c.kind == kindOurs && c.writers > 0 {
			s += fmt.Sprintf(", %d workers", c.writers)
		}
		if c.baseline {
			s += " [baseline]"
		}
		return s
	}
}

// limits returns the effective client QPS and burst.
func (c config) limits() (qps, burst int) {
	switch {
	case c.qps > 0:
		return c.qps, c.burst
	case c.kind == kindKCM:
		return 20, 30
	case c.kind == kindOurs:
		return int(oursDefaults.KubeAPIQPS), oursDefaults.KubeAPIBurst
	}
	return 0, 0
}

// allows reports whether the client limits let n writes through within d:
// the burst at once, then qps per second.
func (c config) allows(n int, d time.Duration) bool {
	q, b := c.limits()
	return q == 0 || float64(b)+float64(q)*d.Seconds() >= float64(n)
}

// concurrency is how many node writes the allocator has in flight at most.
func (c config) concurrency() int {
	switch {
	case c.kind == kindKCM:
		return kcmWorkers
	case c.kind == kindOurs && c.writers == 0:
		return oursWorkers
	}
	return c.writers
}

// throttled reports whether the client limits, not the machine, bound the
// throughput; such runs take N/qps seconds.
func (c config) throttled() bool {
	q, _ := c.limits()
	return q > 0 && q <= 50
}

// network is what an allocator hands out: blocks of an IPv4 range and,
// for dual-stack, one block of an IPv6 range too.
type network struct {
	v4     netip.Prefix
	v4Mask int
	v6     netip.Prefix // not valid: single-stack
	v6Mask int
}

func (nw network) dualStack() bool { return nw.v6.IsValid() }

// networkFor is the network a scenario runs on: the cluster CIDR with
// -node-mask blocks; with the IPv6 range beside it for dual-stack; for the
// scale point, blocks small enough for every node (see scaleMask).
func (b *bench) networkFor(s scenario) network {
	nw := network{v4: b.clusterCIDR, v4Mask: b.nodeMask}
	switch {
	case s.existing > 0:
		nw.v4Mask = scaleMask(b.clusterCIDR, b.nodeMask, s.existing+s.nodes+1)
	case s.dualStack:
		nw.v6, nw.v6Mask = b.clusterCIDRv6, b.opts.nodeMaskV6
	}
	return nw
}

// scaleMask is the node block size of the scale point: mask, or, when the
// range holds fewer than n blocks of that size, the largest size of which it
// holds n (the 100,000-node point needs /26 blocks of a /9).
func scaleMask(p netip.Prefix, mask, n int) int {
	return max(mask, fitMask(p, n))
}

// fitMask is the longest prefix length of which p holds n blocks.
func fitMask(p netip.Prefix, n int) int {
	return p.Bits() + bits.Len(uint(n-1))
}

// kcmArgs are kube-controller-manager's node IPAM flags for nw: a
// dual-stack --cluster-cidr takes the per-family mask flags, and
// --node-cidr-mask-size is refused beside them.
func kcmArgs(nw network) map[string]string {
	args := map[string]string{
		"allocate-node-cidrs":      "true",
		"service-cluster-ip-range": cluster.DefaultServiceCIDR,
	}
	if nw.dualStack() {
		args["cluster-cidr"] = nw.v4.String() + "," + nw.v6.String()
		args["node-cidr-mask-size-ipv4"] = strconv.Itoa(nw.v4Mask)
		args["node-cidr-mask-size-ipv6"] = strconv.Itoa(nw.v6Mask)
		return args
	}
	args["cluster-cidr"] = nw.v4.String()
	args["node-cidr-mask-size"] = strconv.Itoa(nw.v4Mask)
	return args
}

// launch starts the allocator as its own process and returns at once (for
// kube-controller-manager, once it reports healthy). The operator's
// PodNetwork must exist already.
func (b *bench) launch(cfg config, nw network, run string) (*cluster.Process, error) {
	switch cfg.kind {
	case kindLimit:
		return b.cluster.Run(run, b.self, "-limit-writer", "-writer-kubeconfig="+b.cluster.KubeconfigPath,
			"-writers="+strconv.Itoa(cfg.writers), "-cluster-cidr="+nw.v4.String(), "-node-mask="+strconv.Itoa(nw.v4Mask))
	case kindKCM:
		return b.cluster.RunControllerManager(cluster.ControllerManagerOptions{
			Name: run, Controllers: []string{"nodeipam"}, QPS: cfg.qps, Burst: cfg.burst, Args: kcmArgs(nw),
		})
	}
	args := []string{"--kubeconfig=" + b.cluster.KubeconfigPath, "--leader-elect=false", "--enable-node-ipam=true",
		"--node-ipam-record-namespace=" + recordNamespace, "--metrics-bind-address=0", "--health-probe-bind-address=0"}
	if cfg.qps > 0 {
		args = append(args, fmt.Sprintf("--kube-api-qps=%d", cfg.qps), fmt.Sprintf("--kube-api-burst=%d", cfg.burst))
	}
	if cfg.writers > 0 {
		args = append(args, fmt.Sprintf("--node-ipam-workers=%d", cfg.writers))
	}
	args = append(args, b.opts.operatorArgs...)
	binary := b.operator
	if cfg.baseline {
		binary = b.opts.baseline
	}
	return b.cluster.Run(run, binary, args...)
}

// start runs the allocator as its own process and returns once it has
// allocated a canary node, so every run measures a warmed-up allocator.
func (b *bench) start(ctx context.Context, cfg config, nw network, run string) (*cluster.Process, error) {
	var (
		p   *cluster.Process
		err error
	)
	if cfg.kind == kindOurs {
		err = b.createPodNetwork(ctx, nw)
	}
	if err == nil {
		p, err = b.launch(cfg, nw, run)
	}
	if err == nil && cfg.kind == kindOurs {
		err = b.waitRangesActive(ctx, nw)
	}
	if err != nil {
		if p != nil {
			_ = p.Stop()
		}
		return nil, fmt.Errorf("starting %s: %w", cfg, err)
	}
	if err := b.canary(ctx, "canary-"+run, 2*time.Minute); err != nil {
		_ = p.Stop()
		return nil, fmt.Errorf("%s (log: %s): %w", cfg, p.LogPath(), err)
	}
	return p, nil
}

// canary creates a node and waits up to timeout until it has podCIDRs.
func (b *bench) canary(ctx context.Context, name string, timeout time.Duration) error {
	if _, err := b.cs.CoreV1().Nodes().Create(ctx, newNode(name), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating canary node: %w", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		n, err := b.cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("reading canary node: %w", err)
		}
		return len(n.Spec.PodCIDRs) > 0, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the canary node to get podCIDRs: %w", err)
	}
	return nil
}

// Names of the operator's ranges: the IPv4 one, and the IPv6 one of a
// dual-stack run.
const (
	benchRange   = "bench"
	benchRangeV6 = "bench-v6"
)

// podNetworkRanges are the operator's ranges equivalent to
// kube-controller-manager's --cluster-cidr and node mask flags for nw.
func podNetworkRanges(nw network) []v1alpha1.PodCIDRRange {
	ranges := []v1alpha1.PodCIDRRange{{Name: benchRange, CIDR: nw.v4.String(), NodeMaskSize: int32(nw.v4Mask)}}
	if nw.dualStack() {
		ranges = append(ranges, v1alpha1.PodCIDRRange{Name: benchRangeV6, CIDR: nw.v6.String(), NodeMaskSize: int32(nw.v6Mask)})
	}
	return ranges
}

// createPodNetwork creates PodNetwork "default" with the ranges of nw.
func (b *bench) createPodNetwork(ctx context.Context, nw network) error {
	pn := &v1alpha1.PodNetwork{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName},
		Spec:       v1alpha1.PodNetworkSpec{Ranges: podNetworkRanges(nw)},
	}
	if err := b.crc.Create(ctx, pn); err != nil {
		return fmt.Errorf("creating PodNetwork: %w", err)
	}
	return nil
}

// waitRangesActive waits until every range of nw is Active: their only
// required consumer is node-ipam, which the operator registers itself.
func (b *bench) waitRangesActive(ctx context.Context, nw network) error {
	ranges := podNetworkRanges(nw)
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pn := &v1alpha1.PodNetwork{}
		if err := b.crc.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, pn); err != nil {
			return false, fmt.Errorf("reading PodNetwork: %w", err)
		}
		active := 0
		for _, r := range pn.Status.Ranges {
			if r.Phase == v1alpha1.RangePhaseActive && slices.ContainsFunc(ranges, func(x v1alpha1.PodCIDRRange) bool { return x.Name == r.Name }) {
				active++
			}
		}
		return active == len(ranges), nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the ranges %v to be Active: %w", ranges, err)
	}
	return nil
}

// resetOperator deletes PodNetwork "default" and every PodNetworkConsumer
// once the operator is stopped, so the next run starts from scratch. With
// no operator running, the drain finalizer is removed by hand.
// recordNamespace holds NodeIPAM's issued-block record in the runs of the
// operator binary.
const recordNamespace = "kube-system"

func (b *bench) resetOperator(ctx context.Context) error {
	pn := &v1alpha1.PodNetwork{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PodNetworkName}}
	if err := b.crc.Patch(ctx, pn, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing the PodNetwork finalizer: %w", err)
	}
	if err := b.crc.Delete(ctx, pn); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting PodNetwork: %w", err)
	}
	if err := b.crc.DeleteAllOf(ctx, &v1alpha1.PodNetworkConsumer{}); err != nil {
		return fmt.Errorf("deleting PodNetworkConsumers: %w", err)
	}
	// Every run starts from a fresh record: a former run's would quarantine
	// its blocks at the next start.
	record := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: recordNamespace, Name: nodeipam.RecordName}}
	if err := b.crc.Delete(ctx, record); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting NodeIPAM's issued-block record: %w", err)
	}
	set := &v1alpha1.AutoscaledRangeSet{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.AutoscaledRangeSetName}}
	if err := b.crc.Delete(ctx, set); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting AutoscaledRangeSet: %w", err)
	}
	// Events about cluster-scoped objects are in "default"; the next run
	// counts its own.
	if err := b.crc.DeleteAllOf(ctx, &eventsv1.Event{}, client.InNamespace(metav1.NamespaceDefault)); err != nil {
		return fmt.Errorf("deleting events: %w", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := b.crc.Get(ctx, client.ObjectKey{Name: v1alpha1.PodNetworkName}, &v1alpha1.PodNetwork{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if err != nil {
		return fmt.Errorf("waiting for PodNetwork to be gone: %w", err)
	}
	return nil
}

// allocated lists the nodes and returns them, or an error naming a node
// without podCIDRs.
func (b *bench) allocated(ctx context.Context) ([]corev1.Node, error) {
	var nodes []corev1.Node
	opts := metav1.ListOptions{Limit: 500}
	for {
		l, err := b.cs.CoreV1().Nodes().List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing nodes: %w", err)
		}
		nodes = append(nodes, l.Items...)
		if l.Continue == "" {
			break
		}
		opts.Continue = l.Continue
	}
	for i := range nodes {
		if len(nodes[i].Spec.PodCIDRs) == 0 {
			return nil, fmt.Errorf("node %s has no podCIDRs", nodes[i].Name)
		}
	}
	return nodes, nil
}
