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

package app

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"podnetwork.io/operator/internal/cli"
	"podnetwork.io/operator/internal/scheme"
)

// drainClient holds a pod on each of nodes a and b and a budget; the pods
// are indexed by spec.nodeName, as the API server selects them.
func drainClient(funcs interceptor.Funcs) client.Client {
	pod := func(node, name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Spec: corev1.PodSpec{NodeName: node}}
	}
	base := fake.NewClientBuilder().WithScheme(scheme.Scheme()).
		WithIndex(&corev1.Pod{}, podNodeNameField, func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithObjects(pod("a", "web-0"), pod("b", "web-1"), pod("c", "other"),
			&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}).Build()
	return interceptor.NewClient(base, funcs)
}

// TestReadDrain: the pods of the named nodes only, one node at a time,
// and every budget; a denial is named, not fatal; another error is.
func TestReadDrain(t *testing.T) {
	ctx := context.Background()
	r, err := ReadDrain(ctx, drainClient(interceptor.Funcs{}), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.PodsRead || !r.PDBsRead || len(r.Pods) != 2 || r.Pods["a"][0].Name != "web-0" || r.Pods["b"][0].Name != "web-1" || len(r.PDBs) != 1 || r.Unreadable != nil {
		t.Errorf("read %+v", r)
	}

	denyList := func(resource string, err error) interceptor.Funcs {
		return interceptor.Funcs{List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			switch list.(type) {
			case *corev1.PodList:
				if resource == "pods" {
					return err
				}
			case *policyv1.PodDisruptionBudgetList:
				if resource == cli.ResourcePDBs {
					return err
				}
			}
			return cl.List(ctx, list, opts...)
		}}
	}
	r, err = ReadDrain(ctx, drainClient(denyList("pods", rbacDenial("list", schema.GroupResource{Resource: "pods"}, ""))), []string{"a", "b"})
	if err != nil || r.PodsRead || r.Pods != nil || !r.PDBsRead || len(r.Unreadable) != 1 || r.Unreadable[0].Resource != "pods" {
		t.Errorf("pods denied: %+v, %v", r, err)
	}
	r, err = ReadDrain(ctx, drainClient(denyList(cli.ResourcePDBs, rbacDenial("list", schema.GroupResource{Group: "policy", Resource: "poddisruptionbudgets"}, ""))), []string{"a"})
	if err != nil || !r.PodsRead || r.PDBsRead || len(r.Unreadable) != 1 || r.Unreadable[0].Resource != cli.ResourcePDBs {
		t.Errorf("budgets denied: %+v, %v", r, err)
	}
	if _, err := ReadDrain(ctx, drainClient(denyList("pods", errors.New("connection refused"))), []string{"a"}); err == nil {
		t.Error("another error was swallowed")
	}
}
