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

package watches

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"

	"podnetwork.io/operator/internal/slimnode"
	"podnetwork.io/operator/test/framework/heapsize"
)

// bigNode is a Node as a kubelet on a busy cloud VM reports it: 50 cached
// images, attached volumes, capacity, nodeInfo, heartbeat conditions,
// annotations and managedFields from four writers.
func bigNode(name string) *corev1.Node {
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	n := &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: types.UID("6f1d0c2e-9b7a-4c1e-8f3d-" + name), ResourceVersion: "123456789",
			CreationTimestamp: now,
			Labels: map[string]string{
				"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
				"node.kubernetes.io/instance-type": "m6i.4xlarge", "topology.kubernetes.io/zone": "eu-west-1a",
				"topology.kubernetes.io/region": "eu-west-1", "karpenter.sh/nodepool": "general-purpose",
				"karpenter.sh/capacity-type": "on-demand", "node.kubernetes.io/lifecycle": "normal",
			},
			Annotations: map[string]string{
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
				"csi.volume.kubernetes.io/nodeid":                        `{"ebs.csi.aws.com":"i-0123456789abcdef0","efs.csi.aws.com":"i-0123456789abcdef0"}`,
				"karpenter.sh/nodepool-hash":                             "12345678901234567890",
				"alpha.kubernetes.io/provided-node-ip":                   "10.0.12.34",
			},
			Finalizers: []string{"karpenter.sh/termination"},
		},
		Spec: corev1.NodeSpec{
			ProviderID: "aws:///eu-west-1a/i-0123456789abcdef0",
			PodCIDR:    "10.244.12.0/24", PodCIDRs: []string{"10.244.12.0/24", "fd00:10:244:c::/64"},
			Taints: []corev1.Taint{{Key: "karpenter.sh/disrupted", Effect: corev1.TaintEffectNoSchedule}},
		},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: "10.0.12.34"},
				{Type: corev1.NodeHostName, Address: name},
				{Type: corev1.NodeInternalDNS, Address: name + ".eu-west-1.compute.internal"},
			},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID: "ec2f1b1d7a3c4e5f8a9b0c1d2e3f4a5b", SystemUUID: "ec2f1b1d-7a3c-4e5f-8a9b-0c1d2e3f4a5b",
				BootID: "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", KernelVersion: "6.8.0-1021-aws",
				OSImage: "Ubuntu 24.04.1 LTS", ContainerRuntimeVersion: "containerd://2.0.1",
				KubeletVersion: "v1.37.2", OperatingSystem: "linux", Architecture: "amd64",
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		},
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage, "hugepages-1Gi", "hugepages-2Mi"} {
		q := resource.MustParse("16")
		if n.Status.Capacity == nil {
			n.Status.Capacity, n.Status.Allocatable = corev1.ResourceList{}, corev1.ResourceList{}
		}
		n.Status.Capacity[r], n.Status.Allocatable[r] = q, q
	}
	for _, t := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeReady, corev1.NodeNetworkUnavailable} {
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{
			Type: t, Status: corev1.ConditionFalse, LastHeartbeatTime: now, LastTransitionTime: now,
			Reason: "Kubelet" + string(t), Message: "kubelet reports " + string(t) + " as expected",
		})
	}
	for i := range 50 {
		n.Status.Images = append(n.Status.Images, corev1.ContainerImage{
			Names: []string{
				fmt.Sprintf("registry.example.com/team-%02d/service-%02d@sha256:%064d", i%7, i, i),
				fmt.Sprintf("registry.example.com/team-%02d/service-%02d:v1.%d.%d", i%7, i, i, i*3),
			},
			SizeBytes: int64(40_000_000 + i*1_000_000),
		})
	}
	for i := range 10 {
		v := corev1.UniqueVolumeName(fmt.Sprintf("kubernetes.io/csi/ebs.csi.aws.com^vol-0%016d", i))
		n.Status.VolumesInUse = append(n.Status.VolumesInUse, v)
		n.Status.VolumesAttached = append(n.Status.VolumesAttached, corev1.AttachedVolume{Name: v, DevicePath: ""})
	}
	fields := metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:node.alpha.kubernetes.io/ttl":{}}},"f:spec":{"f:podCIDR":{},"f:podCIDRs":{".":{},"v:\"10.244.12.0/24\"":{}}},"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{"f:lastHeartbeatTime":{},"f:message":{},"f:reason":{},"f:status":{}}},"f:images":{},"f:nodeInfo":{"f:bootID":{},"f:kernelVersion":{}},"f:volumesAttached":{},"f:volumesInUse":{}}}`)}
	for _, m := range []string{"kubelet", "kube-controller-manager", "karpenter", "podnetwork-operator/node-ipam"} {
		n.ManagedFields = append(n.ManagedFields, metav1.ManagedFieldsEntry{
			Manager: m, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &now, FieldsType: "FieldsV1", FieldsV1: &fields,
		})
	}
	return n
}

func TestTransformNode(t *testing.T) {
	in := bigNode("node-1")
	in.DeletionTimestamp = &metav1.Time{Time: in.CreationTimestamp.Add(time.Hour)}
	got, err := TransformNode(in.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	n := got.(*slimnode.Node)
	want := &slimnode.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: in.Name, UID: in.UID, ResourceVersion: in.ResourceVersion, CreationTimestamp: in.CreationTimestamp,
			DeletionTimestamp: in.DeletionTimestamp, Labels: in.Labels,
		},
		Spec: slimnode.Spec{PodCIDRs: in.Spec.PodCIDRs},
		Status: slimnode.Status{
			Addresses:  in.Status.Addresses[:1], // the InternalIP; the Hostname and InternalDNS are names
			Conditions: []corev1.NodeCondition{in.Status.Conditions[4]},
		},
	}
	// Its copy, without the podCIDRs the cache keeps read: those are
	// slimnode's to test, and must read as the kept podCIDRs do.
	if !equality.Semantic.DeepEqual(n.DeepCopy(), want) {
		t.Fatalf("TransformNode kept the wrong fields:\n got %+v\nwant %+v", n, want)
	}
	if got, read := n.ObservedPodCIDRs(), want.ObservedPodCIDRs(); !reflect.DeepEqual(got, read) {
		t.Fatalf("TransformNode's node reads podCIDRs %v, want %v", got, read)
	}
	tomb := toolscache.DeletedFinalStateUnknown{Key: "node-1", Obj: in}
	if out, err := TransformNode(tomb); err != nil || out != any(tomb) {
		t.Fatalf("TransformNode(tombstone) = %v, %v; want it unchanged", out, err)
	}
}

// BenchmarkNodeTransform reports the time to strip one Node and, measured
// once per run, the heap retained per Node by 65,000 Nodes decoded from JSON
// (as the informer does) before and after the transform: the figure the
// cache transform exists for. Memory is a reported metric, never asserted.
func BenchmarkNodeTransform(b *testing.B) {
	const nodes = 65_000
	raw, err := json.Marshal(bigNode("ip-10-0-12-34.eu-west-1.compute.internal"))
	if err != nil {
		b.Fatal(err)
	}
	decode := func() *corev1.Node {
		n := &corev1.Node{}
		if err := json.Unmarshal(raw, n); err != nil {
			b.Fatal(err)
		}
		return n
	}

	full := heapsize.Retained(nodes, func() any { return decode() })
	stripped := heapsize.Retained(nodes, func() any {
		out, _ := TransformNode(decode())
		return out
	})

	n := decode()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := TransformNode(n); err != nil {
			b.Fatal(err)
		}
	}
	// Reported after the loop: b.Loop resets the timer, which drops metrics.
	b.ReportMetric(float64(len(raw)), "json-bytes/node")
	b.ReportMetric(full/nodes, "full-heap-bytes/node")
	b.ReportMetric(stripped/nodes, "cached-heap-bytes/node")
	b.ReportMetric(stripped/(1<<20), "cached-MiB/65k-nodes")
}
