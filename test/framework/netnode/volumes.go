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
	"context"
	"fmt"
	"os"
	"path/filepath"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// serviceAccountDir is where the kubelet mounts a pod's ServiceAccount
// token, CA and namespace.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// volumes prepares the pod's volumes under dir and returns the mounts of its
// first container: ConfigMaps written as one file per key (read when the
// program starts, as a kubelet does at container start), hostPath
// directories kept per node (so /run/flannel survives a restart, as on a
// real host), and a ServiceAccount token bound to the pod. It also returns
// the ConfigMap files it wrote, "<volume>/<file>" → content.
func (k *Kubelet) volumes(ctx context.Context, pod *corev1.Pod, node *Node, dir string) ([]mount, map[string]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	sources := map[string]string{}
	written := map[string]string{}
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.ConfigMap != nil:
			src := filepath.Join(dir, "volumes", v.Name)
			files, err := k.writeConfigMap(ctx, pod.Namespace, v.ConfigMap, src)
			if err != nil {
				return nil, nil, fmt.Errorf("pod %s: volume %s: %w", client.ObjectKeyFromObject(pod), v.Name, err)
			}
			for path, content := range files {
				written[v.Name+"/"+path] = content
			}
			sources[v.Name] = src
		case v.HostPath != nil:
			src := k.HostPath(node.Name, v.HostPath.Path)
			if err := os.MkdirAll(src, 0o755); err != nil {
				return nil, nil, err
			}
			sources[v.Name] = src
		}
	}
	var mounts []mount
	for _, m := range pod.Spec.Containers[0].VolumeMounts {
		src, ok := sources[m.Name]
		if !ok {
			return nil, nil, fmt.Errorf("pod %s: volume %s has a type the kubelet stand-in does not support", client.ObjectKeyFromObject(pod), m.Name)
		}
		mounts = append(mounts, mount{source: src, target: m.MountPath, readOnly: m.ReadOnly})
	}
	if pod.Spec.ServiceAccountName != "" {
		src := filepath.Join(dir, "volumes", "serviceaccount")
		if err := k.writeToken(ctx, pod, src); err != nil {
			return nil, nil, err
		}
		mounts = append(mounts, mount{source: src, target: serviceAccountDir, readOnly: true})
	}
	return mounts, written, nil
}

// writeConfigMap writes the ConfigMap's files into dir and returns them,
// path → content.
func (k *Kubelet) writeConfigMap(ctx context.Context, namespace string, src *corev1.ConfigMapVolumeSource, dir string) (map[string]string, error) {
	cm := &corev1.ConfigMap{}
	if err := k.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: src.Name}, cm); err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", namespace, src.Name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files := map[string]string{}
	if len(src.Items) == 0 {
		for key := range cm.Data {
			files[key] = key
		}
	}
	for _, item := range src.Items {
		files[item.Key] = item.Path
	}
	written := map[string]string{}
	for key, path := range files {
		if err := os.WriteFile(filepath.Join(dir, path), []byte(cm.Data[key]), 0o644); err != nil {
			return nil, err
		}
		written[path] = cm.Data[key]
	}
	return written, nil
}

// writeToken requests a token for the pod's ServiceAccount, bound to the
// pod, so the program talks to the API with the rights its own RBAC grants.
func (k *Kubelet) writeToken(ctx context.Context, pod *corev1.Pod, dir string) error {
	sa := &corev1.ServiceAccount{}
	if err := k.Client.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: pod.Spec.ServiceAccountName}, sa); err != nil {
		return fmt.Errorf("reading ServiceAccount %s/%s: %w", pod.Namespace, pod.Spec.ServiceAccountName, err)
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: ptr.To[int64](3600),
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
	}}
	if err := k.Client.SubResource("token").Create(ctx, sa, tr); err != nil {
		return fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"token": []byte(tr.Status.Token), "ca.crt": k.CACert, "namespace": []byte(pod.Namespace)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// HostPath returns where path of a hostPath volume lives for node: each node
// has its own copy of the host directories its pods mount.
func (k *Kubelet) HostPath(node, path string) string {
	return filepath.Join(k.WorkDir, "hosts", node, filepath.Clean(path))
}
