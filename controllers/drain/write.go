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

package drain

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
	draincore "podnetwork.io/operator/internal/drain"
)

// writeStatus applies status.drainAssist under drain assist's field manager
// when it differs from the PodNetwork read; nil removes it (mode Off).
func (r *Reconciler) writeStatus(ctx context.Context, pn *podnetworkv1alpha1.PodNetwork, want *podnetworkv1alpha1.DrainAssistStatus) error {
	if equality.Semantic.DeepEqual(pn.Status.DrainAssist, want) {
		r.written, r.writtenUID = want, pn.UID
		return nil
	}
	u, err := podnetworkv1alpha1.PodNetworkStatusApply(pn.Name, &podnetworkv1alpha1.PodNetworkStatus{DrainAssist: want})
	if err != nil {
		return err
	}
	if err := r.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying PodNetwork status.drainAssist: %w", err)
	}
	r.written, r.writtenUID = want, pn.UID
	return nil
}

// emit records the events Summarize asked for, once the status is written.
// An event about a node regards the node, at the resourceVersion read,
// with the PodNetwork as the related object; one about drain assist as a
// whole regards the PodNetwork's status.drainAssist.
func (r *Reconciler) emit(pn *podnetworkv1alpha1.PodNetwork, snap *snapshot, evs []draincore.Event) {
	if r.Recorder == nil {
		return
	}
	podNetwork := &corev1.ObjectReference{
		APIVersion:      podnetworkv1alpha1.GroupVersion.String(),
		Kind:            "PodNetwork",
		Name:            pn.Name,
		UID:             pn.UID,
		ResourceVersion: pn.ResourceVersion,
		FieldPath:       "status.drainAssist",
	}
	for _, ev := range evs {
		if ev.Node == "" {
			r.Recorder.Eventf(podNetwork, nil, ev.Type, ev.Reason, ev.Action, "%s", ev.Message)
			continue
		}
		regarding := &corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: ev.Node}
		if n := snap.nodes[ev.Node]; n != nil {
			regarding.UID, regarding.ResourceVersion = n.UID, n.ResourceVersion
		}
		r.Recorder.Eventf(regarding, podNetwork, ev.Type, ev.Reason, ev.Action, "%s", ev.Message)
	}
}
