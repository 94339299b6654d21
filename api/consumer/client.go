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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	// consumer register before the manager's cache has started.
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
// so a plugin whose RBAC does not allow create works once the admin or its
// chart created the object.
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
	obj := &v1alpha1.PodNetworkConsumer{ObjectMeta: metav1.ObjectMeta{Name: c.Name}, Spec: spec}
	if err := c.Client.Create(ctx, obj, client.FieldOwner(c.FieldManager)); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("registering PodNetworkConsumer %s: %w", c.Name, err)
	}
	return nil
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

// Get returns the consumer's PodNetworkConsumer, or nil when it does not
// exist or is being deleted: a consumer that is not registered says nothing.
func (c *Client) Get(ctx context.Context) (*v1alpha1.PodNetworkConsumer, error) {
	self := &v1alpha1.PodNetworkConsumer{}
	if err := c.Client.Get(ctx, client.ObjectKey{Name: c.Name}, self); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading PodNetworkConsumer %s: %w", c.Name, err)
	}
	if !self.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	return self, nil
}
