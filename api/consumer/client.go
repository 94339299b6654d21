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

package consumer

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	v1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// Client reads and writes one consumer's own PodNetworkConsumer.
type Client struct {
	// Client writes (and reads, when Reader is nil).
	Client client.Client
	// Reader, if set, is what Register reads with: mgr.GetAPIReader() lets a
	// consumer register before the manager's cache has started, and reads
	// the one object by name (the "get" verb, which RBAC can restrict with
	// resourceNames) instead of starting an informer over every
	// PodNetworkConsumer.
	Reader client.Reader
	// Name is the PodNetworkConsumer's name.
	Name string
	// FieldManager owns everything the consumer writes.
	FieldManager string
}

// registerRetry is how often Registration retries a failed registration.
const registerRetry = time.Second

// Register creates the consumer's PodNetworkConsumer with spec unless it
// exists. An existing object is left alone: its spec belongs to whoever
// wrote it (an admin may have made the consumer optional). It reads first,
// so a plugin whose RBAC does not allow creating works once the admin or its
// chart created the object.
//
// It creates by server-side apply under FieldManager, never forcing: a
// request that names the object, which RBAC authorizes against
// resourceNames (the "patch" verb, and "create" since it creates), unlike a
// plain create. Should someone else create the object between the read and
// the apply with another spec, the apply conflicts and their spec stays.
func (c *Client) Register(ctx context.Context, spec v1alpha1.PodNetworkConsumerSpec) error {
	reader := c.Reader
	if reader == nil {
		reader = c.Client
	}
	err := reader.Get(ctx, client.ObjectKey{Name: c.Name}, &v1alpha1.PodNetworkConsumer{})
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("looking up PodNetworkConsumer %s: %w", c.Name, err)
	}
	body, err := registrationApply(c.Name, spec)
	if err != nil {
		return err
	}
	err = c.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(body), client.FieldOwner(c.FieldManager))
	if err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("registering PodNetworkConsumer %s: %w", c.Name, err)
	}
	return nil
}

// registrationApply is the body of the server-side apply that registers
// PodNetworkConsumer name with spec.
func registrationApply(name string, spec v1alpha1.PodNetworkConsumerSpec) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&spec)
	if err != nil {
		return nil, fmt.Errorf("converting the spec of PodNetworkConsumer %s: %w", name, err)
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(v1alpha1.GroupVersion.String())
	u.SetKind("PodNetworkConsumer")
	u.SetName(name)
	u.Object["spec"] = content
	return u, nil
}

// Registration returns a manager runnable (run by the leader only) that
// registers once the manager starts, retrying every second until it
// succeeds or the manager stops. It is not repeated: an admin who deletes
// the consumer later no longer wants transitions to wait for it.
func (c *Client) Registration(spec v1alpha1.PodNetworkConsumerSpec) manager.Runnable {
	return manager.RunnableFunc(func(ctx context.Context) error {
		err := wait.PollUntilContextCancel(ctx, registerRetry, true, func(ctx context.Context) (bool, error) {
			if err := c.Register(ctx, spec); err != nil {
				// Retried here rather than returned: a returned error would stop the manager.
				ctrl.LoggerFrom(ctx).Error(err, "registering PodNetworkConsumer failed; retrying", "podNetworkConsumer", c.Name)
				return false, nil
			}
			return true, nil
		})
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("registering PodNetworkConsumer %s: %w", c.Name, err)
		}
		return nil
	})
}

// Get returns the consumer's PodNetworkConsumer, read through Client, or
// nil when it does not exist or is being deleted: a consumer that is not
// registered says nothing.
func (c *Client) Get(ctx context.Context) (*v1alpha1.PodNetworkConsumer, error) {
	return getLive(ctx, c.Client, c.Name)
}

// getLive reads PodNetworkConsumer name through reader; nil when it does
// not exist or is being deleted.
func getLive(ctx context.Context, reader client.Reader, name string) (*v1alpha1.PodNetworkConsumer, error) {
	self := &v1alpha1.PodNetworkConsumer{}
	if err := reader.Get(ctx, client.ObjectKey{Name: name}, self); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading PodNetworkConsumer %s: %w", name, err)
	}
	if !self.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	return self, nil
}
