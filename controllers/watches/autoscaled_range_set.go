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
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	podnetworkv1alpha1 "podnetwork.io/operator/api/v1alpha1"
)

// AutoscaledRangeSet reads AutoscaledRangeSet "default" through reader; nil,
// without an error, when it does not exist (no range was ever autoscaled).
// Every controller that needs the declared ranges passes it, with the
// PodNetwork's spec.ranges, to declared.Union.
func AutoscaledRangeSet(ctx context.Context, reader client.Reader) (*podnetworkv1alpha1.AutoscaledRangeSet, error) {
	set := &podnetworkv1alpha1.AutoscaledRangeSet{}
	if err := reader.Get(ctx, client.ObjectKey{Name: podnetworkv1alpha1.AutoscaledRangeSetName}, set); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading AutoscaledRangeSet %s: %w", podnetworkv1alpha1.AutoscaledRangeSetName, err)
	}
	return set, nil
}
