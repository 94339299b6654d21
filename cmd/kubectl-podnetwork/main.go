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

// Command kubectl-podnetwork is the kubectl plugin of podnetwork-operator:
// `kubectl podnetwork status|check|plan|version` once it is on the PATH
// (go install ./cmd/kubectl-podnetwork). See internal/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	// The kubeconfig's auth providers, as kubectl has them: oidc, and the
	// azure and gcp stubs that say which exec plugin replaced them. exec
	// credential plugins need no registration.
	_ "k8s.io/client-go/plugin/pkg/client/auth"

	"podnetwork.io/operator/internal/cli/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, app.Options{})
	stop()
	os.Exit(code)
}
