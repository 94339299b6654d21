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

package lifecycle_test

import (
	"testing"
	"time"

	"podnetwork.io/operator/test/framework"
)

// The suite runs against a real kube-apiserver and etcd built from their Go
// modules (hack/control-plane.sh), so CEL rules, server-side apply and RBAC
// behave exactly as in a cluster.
var (
	suite     = framework.NewSuite("Controllers Suite", framework.ControlPlaneOptions{})
	ctx       = suite.Ctx
	k8sClient = suite.API
)

func TestControllers(t *testing.T) { suite.Run(t, 30*time.Second, 100*time.Millisecond) }
