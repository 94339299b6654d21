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

package audit

import (
	"fmt"
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
	"podnetwork.io/operator/internal/audit"
	"podnetwork.io/operator/internal/scheme"
	"podnetwork.io/operator/internal/slimnode"
)

// benchPod is a pod as a Deployment's ReplicaSet and a kubelet leave it
// (labels, an owner, managedFields, one container with env, probes,
// resources and mounts, the projected token volume, conditions and a
// container status): about 5 KiB of JSON, 3 KiB of protobuf.
func benchPod(i int, node string, ip netip.Addr) corev1.Pod {
	t := metav1.Unix(1_780_000_000, 0)
	fields := &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"3b1f\"}":{}}},` +
		`"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{},"f:image":{},"f:name":{},"f:ports":{},"f:resources":{}}},"f:dnsPolicy":{},"f:restartPolicy":{}}}`)}
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstrPort(8080)}}, PeriodSeconds: 10}
	cond := func(ct corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: ct, Status: corev1.ConditionTrue, LastTransitionTime: t}
	}
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("web-7d9c8b6f5d-%05d", i), Namespace: "shop", UID: types.UID(fmt.Sprintf("0b8f2c1e-4a5d-4e6f-9a7b-%012d", i)),
			ResourceVersion: "123456789", CreationTimestamp: t, GenerateName: "web-7d9c8b6f5d-",
			Labels:          map[string]string{"app": "web", "pod-template-hash": "7d9c8b6f5d", "tier": "frontend", "team": "shop"},
			Annotations:     map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-06-01T10:00:00Z"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9c8b6f5d", UID: "3b1f", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &t, FieldsType: "FieldsV1", FieldsV1: fields},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &t, FieldsType: "FieldsV1", FieldsV1: fields, Subresource: "status"},
			},
		},
		Spec: corev1.PodSpec{
			NodeName: node, ServiceAccountName: "web", RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst,
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.example.com/shop/web:v1.42.0", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env: []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "PORT", Value: "8080"}, {Name: "DB_HOST", Value: "db.shop.svc"},
					{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
				},
				VolumeMounts:   []corev1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
				LivenessProbe:  probe,
				ReadinessProbe: probe,
			}},
			Volumes: []corev1.Volume{{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To(int64(3607))}},
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			}}}}},
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))}},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, HostIP: "192.168.10.20", HostIPs: []corev1.HostIP{{IP: "192.168.10.20"}}, PodIP: ip.String(), PodIPs: []corev1.PodIP{{IP: ip.String()}},
			StartTime: &t, QOSClass: corev1.PodQOSBurstable,
			Conditions: []corev1.PodCondition{cond(corev1.PodReadyToStartContainers), cond(corev1.PodInitialized), cond(corev1.PodReady), cond(corev1.ContainersReady), cond(corev1.PodScheduled)},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Started: ptr.To(true), Image: "registry.example.com/shop/web:v1.42.0",
				ImageID: "registry.example.com/shop/web@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ContainerID: "containerd://0123456789abcdef",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}}}},
		},
	}
}

// BenchmarkAuditPodPages is the audit's CPU per pod as the API server
// sends them: 10,000 pods in pages of 500 (the audit's page size), each
// page decoded from protobuf (controller-runtime's content type for
// built-in types) or JSON, then checked. Every hundredth pod is on another
// node's block.
func BenchmarkAuditPodPages(b *testing.B) {
	const pods, pageSize, perNode = 10_000, 500, 10
	nodes := make([]*slimnode.Node, pods/perNode)
	for i := range nodes {
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 0}), 24)
		nodes[i] = &slimnode.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i)}, Spec: slimnode.Spec{PodCIDRs: []string{p.String()}}}
	}
	pn := &v1alpha1.PodNetwork{Status: v1alpha1.PodNetworkStatus{Ranges: []v1alpha1.RangeStatus{{Name: "a", CIDR: "10.0.0.0/8", Phase: v1alpha1.RangePhaseActive}}}}
	codecs := serializer.NewCodecFactory(scheme.Scheme())
	for _, mediaType := range []string{runtime.ContentTypeProtobuf, runtime.ContentTypeJSON} {
		info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
		if !ok {
			b.Fatalf("no serializer for %s", mediaType)
		}
		encoder := codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion)
		decoder := codecs.DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion)
		var pages [][]byte
		size := 0
		for start := 0; start < pods; start += pageSize {
			list := &corev1.PodList{}
			for i := start; i < start+pageSize; i++ {
				n := i / perNode
				if i%100 == 99 {
					n = (n + 1) % len(nodes)
				}
				ip := netip.MustParsePrefix(nodes[n].Spec.PodCIDRs[0]).Addr().Next()
				list.Items = append(list.Items, benchPod(i, nodes[i/perNode].Name, ip))
			}
			data, err := runtime.Encode(encoder, list)
			if err != nil {
				b.Fatal(err)
			}
			pages = append(pages, data)
			size += len(data)
		}
		b.Run(mediaType, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				run := audit.NewRun(audit.Input{PodNetwork: pn, Nodes: nodes, PodIPs: true, MaxAnnounce: 20})
				for _, data := range pages {
					list := &corev1.PodList{}
					if _, _, err := decoder.Decode(data, nil, list); err != nil {
						b.Fatal(err)
					}
					run.Pods(list.Items)
				}
				if got := run.Result().Findings[audit.PodIPOutsideNodePodCIDRs]; got != pods/100 {
					b.Fatalf("%d findings", got)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/pods, "ns/pod")
			b.ReportMetric(float64(size)/pods, "bytes/pod")
		})
	}
}

func intstrPort(p int32) intstr.IntOrString { return intstr.FromInt32(p) }
