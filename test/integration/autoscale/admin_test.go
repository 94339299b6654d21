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

package autoscale_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// lastApplied is the annotation kubectl's client-side apply keeps.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// admin writes the admin's own PodNetwork manifest the ways admins and
// GitOps tools do: with the real kubectl when the control plane's assets
// hold it (make test-assets builds it), else by sending what kubectl
// sends. Either way the operator's controllers cannot tell the difference.
type admin struct {
	kubectl    string // empty: emulate
	kubeconfig string
	dir        string
}

func newAdmin() admin {
	GinkgoHelper()
	a := admin{kubeconfig: suite.ControlPlane.Cluster.KubeconfigPath, dir: GinkgoT().TempDir()}
	if path, err := suite.ControlPlane.Cluster.Binary("kubectl"); err == nil {
		a.kubectl = path
		GinkgoWriter.Println("applying with", path)
	} else {
		GinkgoWriter.Println("kubectl not built; emulating its requests:", err)
	}
	return a
}

// write stores the manifest as the file kubectl reads.
func (a admin) write(pn *v1alpha1.PodNetwork) (string, map[string]any) {
	GinkgoHelper()
	pn = pn.DeepCopy()
	pn.APIVersion, pn.Kind = v1alpha1.GroupVersion.String(), "PodNetwork"
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pn)
	Expect(err).NotTo(HaveOccurred())
	delete(u, "status")
	meta := u["metadata"].(map[string]any)
	delete(meta, "creationTimestamp")
	data, err := yaml.Marshal(u)
	Expect(err).NotTo(HaveOccurred())
	path := filepath.Join(a.dir, "podnetwork.yaml")
	Expect(os.WriteFile(path, data, 0o600)).To(Succeed())
	return path, u
}

func (a admin) run(args ...string) {
	GinkgoHelper()
	out, err := exec.Command(a.kubectl, append([]string{"--kubeconfig", a.kubeconfig}, args...)...).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "kubectl %v: %s", args, out)
	GinkgoWriter.Printf("kubectl %v: %s", args, out)
}

// applyClientSide is `kubectl apply -f`: a JSON merge patch (a custom
// resource has no strategic merge) that replaces spec.ranges wholesale and
// records the manifest in the last-applied annotation.
func (a admin) applyClientSide(pn *v1alpha1.PodNetwork) {
	GinkgoHelper()
	path, u := a.write(pn)
	if a.kubectl != "" {
		a.run("apply", "-f", path)
		return
	}
	body, err := json.Marshal(u)
	Expect(err).NotTo(HaveOccurred())
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{lastApplied: string(body)}},
		"spec":     u["spec"],
	})
	Expect(err).NotTo(HaveOccurred())
	target := &v1alpha1.PodNetwork{}
	target.Name = v1alpha1.PodNetworkName
	err = k8sClient.Patch(suiteCtx, target, client.RawPatch(types.MergePatchType, patch))
	if apierrors.IsNotFound(err) {
		// kubectl apply creates a missing object, annotated.
		obj := &unstructured.Unstructured{Object: u}
		obj.SetAnnotations(map[string]string{lastApplied: string(body)})
		err = k8sClient.Create(suiteCtx, obj)
	}
	Expect(err).NotTo(HaveOccurred())
}

// applyServerSide is `kubectl apply --server-side --force-conflicts` under
// a GitOps tool's field manager.
func (a admin) applyServerSide(pn *v1alpha1.PodNetwork) {
	GinkgoHelper()
	path, u := a.write(pn)
	if a.kubectl != "" {
		a.run("apply", "--server-side", "--force-conflicts", "--field-manager=gitops", "-f", path)
		return
	}
	Expect(k8sClient.Apply(suiteCtx, client.ApplyConfigurationFromUnstructured(&unstructured.Unstructured{Object: u}), client.FieldOwner("gitops"), client.ForceOwnership)).To(Succeed())
}

// replace is `kubectl replace -f`: a PUT of the whole object.
func (a admin) replace(pn *v1alpha1.PodNetwork) {
	GinkgoHelper()
	path, u := a.write(pn)
	if a.kubectl != "" {
		a.run("replace", "-f", path)
		return
	}
	live := k8sClient.GetPodNetwork()
	obj := &unstructured.Unstructured{Object: u}
	obj.SetResourceVersion(live.ResourceVersion)
	Expect(k8sClient.Update(suiteCtx, obj)).To(Succeed())
}

// getWide returns `kubectl get podnetwork default -o wide`, or "" without
// kubectl (the printer columns are the apiserver's; only kubectl shows them).
func (a admin) getWide() string {
	GinkgoHelper()
	if a.kubectl == "" {
		return ""
	}
	out, err := exec.Command(a.kubectl, "--kubeconfig", a.kubeconfig, "get", "podnetwork", v1alpha1.PodNetworkName, "-o", "wide").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "kubectl get -o wide: %s", out)
	GinkgoWriter.Printf("kubectl get podnetwork default -o wide:\n%s", out)
	return string(out)
}
