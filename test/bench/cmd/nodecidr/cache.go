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
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"podnetwork.io/operator/test/framework/cluster"
)

// cacheResult is the memory each allocator holds with many nodes that
// already have podCIDRs: a restart of a large cluster.
type cacheResult struct {
	nodes     int
	nodeBytes int // JSON size of one node
	mask      int
	create    time.Duration
	ours, kcm cacheUsage
	err       error
}

// cacheUsage is one allocator's memory once its caches hold every node.
type cacheUsage struct {
	rssMiB, peakMiB, cpuSeconds float64
	// ready is from the process start to the rebuild done (the operator's
	// log), or to the resident set settling (kube-controller-manager).
	ready   time.Duration
	rebuild string // the operator's own rebuild duration, from its log
	err     error
}

// measureCache creates n nodes that already have podCIDRs, as after a
// restart, and measures each allocator's resident memory once its caches
// hold them all. The nodes look like a kubelet registers them (labels,
// annotations, addresses, conditions, capacity, nodeInfo) but without the
// image list, which would make the apiserver and etcd, not the allocators,
// the bottleneck of this 2-core machine; kube-controller-manager caches
// whole nodes, so with images its figure would grow, the operator's not.
func (b *bench) measureCache(ctx context.Context, n int) cacheResult {
	cr := cacheResult{nodes: n}
	// The smallest block size that gives every node a block of the range.
	cr.mask = fitMask(b.clusterCIDR, n)
	sample, _ := json.Marshal(kubeletNode(0, b.block(0, cr.mask)))
	cr.nodeBytes = len(sample)
	progress("cache: creating %d nodes with podCIDRs (/%d blocks of %s)", n, cr.mask, b.clusterCIDR)
	start := time.Now()
	if err := createNodesWith(ctx, b.cs, n, 0, func(i int) *corev1.Node { return kubeletNode(i, b.block(i, cr.mask)) }); err != nil {
		cr.err = err
		return cr
	}
	cr.create = time.Since(start)
	progress("cache: created in %s; starting the operator", cr.create.Round(time.Second))
	cr.ours = b.cacheOurs(ctx, cr.mask)
	progress("cache: operator %+v; starting kube-controller-manager", cr.ours)
	cr.kcm = b.cacheKCM(cr.mask)
	progress("cache: kube-controller-manager %+v", cr.kcm)
	return cr
}

func (b *bench) cacheOurs(ctx context.Context, mask int) cacheUsage {
	if err := b.createPodNetwork(ctx, network{v4: b.clusterCIDR, v4Mask: mask}); err != nil {
		return cacheUsage{err: err}
	}
	defer func() { _ = b.resetOperator(context.Background()) }()
	start := time.Now()
	p, err := b.cluster.Run("cache-ours", b.operator, "--kubeconfig="+b.cluster.KubeconfigPath, "--leader-elect=false",
		"--enable-node-ipam=true", "--node-ipam-record-namespace="+recordNamespace, "--metrics-bind-address=0", "--health-probe-bind-address=0")
	if err != nil {
		return cacheUsage{err: err}
	}
	defer func() { _ = p.Stop() }()
	var u cacheUsage
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if time.Now().After(deadline) || p.Exited() {
			return cacheUsage{err: fmt.Errorf("no rebuild in the operator log %s", p.LogPath())}
		}
		time.Sleep(200 * time.Millisecond)
		if d, ok := loggedRebuild(p.LogPath()); ok {
			u.rebuild = formatRebuild(d)
			break
		}
	}
	u.ready = time.Since(start)
	return settle(p, u)
}

func (b *bench) cacheKCM(mask int) cacheUsage {
	start := time.Now()
	p, err := b.cluster.RunControllerManager(cluster.ControllerManagerOptions{
		Name: "cache-kcm", Controllers: []string{"nodeipam"},
		Args: kcmArgs(network{v4: b.clusterCIDR, v4Mask: mask}),
	})
	if err != nil {
		return cacheUsage{err: err}
	}
	defer func() { _ = p.Stop() }()
	u := settle(p, cacheUsage{})
	u.ready = time.Since(start)
	return u
}

// settle waits until the process's resident set has stopped growing (less
// than 1% over 5 s, at most 3 min) and reads its memory and CPU time.
func settle(p *cluster.Process, u cacheUsage) cacheUsage {
	var history []int64
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		rss, err := memoryKiB(p.Pid(), "VmRSS")
		if err != nil {
			u.err = err
			return u
		}
		history = append(history, rss)
		if k := len(history); k > 5 && float64(history[k-1]) < 1.01*float64(history[k-6]) {
			break
		}
		time.Sleep(time.Second)
	}
	rss, err1 := memoryKiB(p.Pid(), "VmRSS")
	hwm, err2 := memoryKiB(p.Pid(), "VmHWM")
	cpu, err3 := cpuSeconds(p.Pid())
	u.rssMiB, u.peakMiB, u.cpuSeconds, u.err = float64(rss)/1024, float64(hwm)/1024, cpu, errors.Join(err1, err2, err3)
	return u
}

// loggedRebuild returns the duration the operator logged for its start-up
// rebuild, and whether it has logged it yet (a duration it could not read
// is 0).
func loggedRebuild(logPath string) (time.Duration, bool) {
	f, err := os.Open(logPath)
	if err != nil {
		return 0, false
	}
	defer f.Close() //nolint:errcheck // opened read-only: a failed close loses nothing
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), "rebuilt the node allocator") {
			continue
		}
		var entry map[string]any
		if json.Unmarshal(sc.Bytes(), &entry) != nil {
			return 0, true
		}
		switch d := entry["duration"].(type) {
		case float64: // zap's default: seconds
			return time.Duration(d * float64(time.Second)), true
		case string:
			parsed, _ := time.ParseDuration(d)
			return parsed, true
		}
		return 0, true
	}
	return 0, false
}

// formatRebuild renders a logged rebuild duration; "?" if it was unreadable.
func formatRebuild(d time.Duration) string {
	if d <= 0 {
		return "?"
	}
	return d.Round(time.Millisecond).String()
}

// block returns the i-th /mask block of the cluster CIDR (IPv4).
func (b *bench) block(i, mask int) string {
	base := b.clusterCIDR.Masked().Addr().As4()
	v := binary.BigEndian.Uint32(base[:]) + uint32(i)<<(32-mask)
	var out [4]byte
	binary.BigEndian.PutUint32(out[:], v)
	return netip.PrefixFrom(netip.AddrFrom4(out), mask).String()
}

// kubeletNode is node i as a kubelet registers it, with its podCIDR already
// set. Nodes may be created with their status.
func kubeletNode(i int, podCIDR string) *corev1.Node {
	name := fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", i>>16, (i>>8)&255, i&255)
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
				"node.kubernetes.io/instance-type": "m6i.4xlarge", "topology.kubernetes.io/zone": "eu-west-1a",
				"topology.kubernetes.io/region": "eu-west-1", "karpenter.sh/nodepool": "general-purpose",
				"karpenter.sh/capacity-type": "on-demand",
			},
			Annotations: map[string]string{
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
				"csi.volume.kubernetes.io/nodeid":                        fmt.Sprintf(`{"ebs.csi.aws.com":"i-%017x"}`, i),
			},
		},
		Spec: corev1.NodeSpec{PodCIDR: podCIDR, PodCIDRs: []string{podCIDR}, ProviderID: fmt.Sprintf("aws:///eu-west-1a/i-%017x", i)},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("192.168.%d.%d", (i>>8)&255, i&255)},
				{Type: corev1.NodeHostName, Address: name},
				{Type: corev1.NodeInternalDNS, Address: name},
			},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID: fmt.Sprintf("%032x", i), SystemUUID: fmt.Sprintf("%032x", i), BootID: fmt.Sprintf("%032x", i),
				KernelVersion: "6.8.0-1021-aws", OSImage: "Ubuntu 24.04.1 LTS", ContainerRuntimeVersion: "containerd://2.0.1",
				KubeletVersion: "v1.37.2", OperatingSystem: "linux", Architecture: "amd64",
			},
			Capacity:    corev1.ResourceList{},
			Allocatable: corev1.ResourceList{},
		},
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage} {
		n.Status.Capacity[r], n.Status.Allocatable[r] = resource.MustParse("16"), resource.MustParse("15")
	}
	for _, t := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeReady} {
		status := corev1.ConditionFalse
		if t == corev1.NodeReady {
			status = corev1.ConditionTrue
		}
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{
			Type: t, Status: status, LastHeartbeatTime: now, LastTransitionTime: now,
			Reason: "Kubelet" + string(t), Message: "kubelet reports " + string(t),
		})
	}
	return n
}

func (cr *cacheResult) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Memory with %d nodes in the caches (each node %d bytes of JSON, podCIDRs already set as /%d blocks; created in %s):\n\n",
		cr.nodes, cr.nodeBytes, cr.mask, cr.create.Round(time.Second))
	if cr.err != nil {
		fmt.Fprintf(&b, "failed: %v\n\n", cr.err)
		return b.String()
	}
	b.WriteString("| allocator | ready after | own rebuild | RSS MiB | peak RSS MiB | CPU s |\n|---|--:|--:|--:|--:|--:|\n")
	for _, row := range []struct {
		name string
		u    cacheUsage
	}{{"ours (default flags)", cr.ours}, {"kcm (nodeipam only)", cr.kcm}} {
		if row.u.err != nil {
			fmt.Fprintf(&b, "| %s | failed: %v | | | | |\n", row.name, row.u.err)
			continue
		}
		rebuild := row.u.rebuild
		if rebuild == "" {
			rebuild = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.0f | %.1f |\n", row.name, row.u.ready.Round(100*time.Millisecond), rebuild,
			row.u.rssMiB, row.u.peakMiB, row.u.cpuSeconds)
	}
	b.WriteString("\nready after: the operator's log line for the finished rebuild; kube-controller-manager: its resident set settling. " +
		"RSS is read once the resident set grows less than 1% in 5 s.\n\n")
	return b.String()
}
