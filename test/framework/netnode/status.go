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

package netnode

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podStatus is the status the kubelet writes for a host-network pod whose
// single container is in state s. Transition times only move when the
// condition changes, so the DaemonSet controller's availability reading
// (Ready since minReadySeconds) is the kubelet's.
func podStatus(pod *corev1.Pod, node *Node, s ContainerState) *corev1.PodStatus {
	out := pod.Status.DeepCopy()
	out.Phase = corev1.PodRunning
	out.HostIP = node.IPv4.String()
	out.HostIPs = []corev1.HostIP{{IP: node.IPv4.String()}}
	out.PodIP = node.IPv4.String()
	out.PodIPs = []corev1.PodIP{{IP: node.IPv4.String()}}
	if out.StartTime == nil {
		t := now()
		out.StartTime = &t
	}
	ready := corev1.ConditionFalse
	if s.Ready {
		ready = corev1.ConditionTrue
	}
	setCondition(out, corev1.PodScheduled, corev1.ConditionTrue)
	setCondition(out, corev1.PodInitialized, corev1.ConditionTrue)
	setCondition(out, corev1.ContainersReady, ready)
	setCondition(out, corev1.PodReady, ready)

	spec := pod.Spec.Containers[0]
	cs := corev1.ContainerStatus{
		Name: spec.Name, Image: spec.Image, ImageID: spec.Image,
		ContainerID: fmt.Sprintf("netnode://%s/%d", pod.UID, s.Restarts),
		Ready:       s.Ready, RestartCount: int32(s.Restarts), Started: &s.Running,
	}
	if s.Running {
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(s.StartedAt.Truncate(1e9))}
	} else {
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: s.LastExit}
	}
	if len(out.ContainerStatuses) == 1 && equality.Semantic.DeepEqual(out.ContainerStatuses[0], cs) {
		return out
	}
	out.ContainerStatuses = []corev1.ContainerStatus{cs}
	return out
}

func setCondition(s *corev1.PodStatus, t corev1.PodConditionType, status corev1.ConditionStatus) {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			if s.Conditions[i].Status != status {
				s.Conditions[i].Status = status
				s.Conditions[i].LastTransitionTime = now()
			}
			return
		}
	}
	s.Conditions = append(s.Conditions, corev1.PodCondition{Type: t, Status: status, LastTransitionTime: now()})
}

func statusEqual(a, b *corev1.PodStatus) bool { return equality.Semantic.DeepEqual(a, b) }
