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

// Package docs_test runs every `kubectl podnetwork ...` command of the
// shell and console blocks of README.md and docs/ (extracted by the test)
// with the plugin's binary, built once with `go build`, against a real
// kube-apiserver that holds the operator's CRDs and a PodNetwork the
// operator, running in-process, has brought to a steady state. The
// commands run as kubectl would run them, from a kubeconfig whose user
// authenticates through an exec credential plugin with a token of the API
// server's static token file, and which the ClusterRole the docs give
// (docs/kubectl-plugin.md, Permissions) authorizes; each must end with the
// exit code the docs promise (0 unless its comment says "exit N"), and what
// a console block shows a failing command print must be what it prints.
// The commands the prose names in code spans are run with --help: their
// flags must parse.
package docs_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"podnetwork.io/operator/test/framework"
	"podnetwork.io/operator/test/framework/cluster"
)

// The user the documented commands run as: the API server knows its token
// from its static token file; the docs' ClusterRole is bound to its group.
const (
	docsToken = "docs-suite-token-3f9c1d"
	docsUser  = "docs-reader"
	docsGroup = "podnetwork-docs-readers"
	// A user whose role is the docs' without the NetworkPolicies.
	devToken = "docs-suite-dev-token-7a2e44"
	devUser  = "docs-dev"
	devGroup = "podnetwork-docs-devs"
)

var (
	ctx       context.Context
	cp        *framework.ControlPlane
	k8sClient framework.API
	// repoRoot is the repository's root.
	repoRoot string
	// binDir holds kubectl-podnetwork and a kubectl that runs it as kubectl
	// runs plugins; workDir is where the commands run.
	binDir, workDir string
	// kubeconfig authenticates through execMarker's exec plugin.
	kubeconfig, execMarker string
	// devKubeconfig is devUser's, with its token.
	devKubeconfig string
)

func TestDocs(t *testing.T) {
	framework.RunSuite(t, "docs Suite", 60*time.Second, 100*time.Millisecond)
}

var _ = BeforeSuite(func() {
	var err error
	repoRoot, err = cluster.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	dir, err := os.MkdirTemp("", "podnetwork-docs-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	binDir, workDir = filepath.Join(dir, "bin"), filepath.Join(dir, "work")
	Expect(os.MkdirAll(binDir, 0o755)).To(Succeed())
	Expect(os.MkdirAll(filepath.Join(workDir, "home"), 0o755)).To(Succeed())

	// The binary builds while the control plane starts, with -race like
	// the tests (and sharing their compiled packages): a data race in a
	// documented command fails the suite. Without the symbol table and
	// DWARF, which only slow the link down.
	build := exec.Command("go", "build", "-race", "-ldflags=-s -w", "-o", filepath.Join(binDir, "kubectl-podnetwork"), "./cmd/kubectl-podnetwork")
	build.Dir = repoRoot
	buildOut := &safeBuffer{}
	build.Stdout, build.Stderr = buildOut, buildOut
	Expect(build.Start()).To(Succeed())

	tokens := filepath.Join(dir, "tokens.csv")
	Expect(os.WriteFile(tokens, fmt.Appendf(nil, "%s,%s,%s-uid,%q\n%s,%s,%s-uid,%q\n",
		docsToken, docsUser, docsUser, docsGroup, devToken, devUser, devUser, devGroup), 0o600)).To(Succeed())
	ctx, cp = framework.StartSuite(framework.ControlPlaneOptions{APIServerArgs: map[string]string{"token-auth-file": tokens}})
	k8sClient = framework.NewAPI(ctx, cp.Client)

	Expect(build.Wait()).To(Succeed(), "go build ./cmd/kubectl-podnetwork:\n%s", buildOut.String())
	// kubectl runs `kubectl podnetwork ARGS` as `kubectl-podnetwork ARGS`
	// from the PATH; this kubectl does only that.
	Expect(os.WriteFile(filepath.Join(binDir, "kubectl"), []byte(`#!/bin/sh
if [ "$1" = podnetwork ]; then shift; exec kubectl-podnetwork "$@"; fi
echo "kubectl (test/integration/docs): only kubectl podnetwork is here, not kubectl $1" >&2
exit 127
`), 0o755)).To(Succeed())

	// The exec credential plugin hands out the token (and says it ran).
	execMarker = filepath.Join(dir, "exec-plugin-ran")
	plugin := filepath.Join(binDir, "docs-credential-plugin")
	Expect(os.WriteFile(plugin, fmt.Appendf(nil, `#!/bin/sh
touch %s
cat <<EOF
{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential", "status": {"token": "%s"}}
EOF
`, execMarker, docsToken), 0o755)).To(Succeed())
	cfg := cp.Config
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[docsUser] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
		APIVersion: "client.authentication.k8s.io/v1", Command: plugin, InteractiveMode: clientcmdapi.NeverExecInteractiveMode}}
	kc.Contexts["docs"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: docsUser}
	// The docs' examples of --context name a context prod.
	kc.Contexts["prod"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: docsUser}
	kc.CurrentContext = "docs"
	kubeconfig = filepath.Join(dir, "kubeconfig")
	Expect(clientcmd.WriteToFile(*kc, kubeconfig)).To(Succeed())
	kc.AuthInfos = map[string]*clientcmdapi.AuthInfo{devUser: {Token: devToken}}
	kc.Contexts = map[string]*clientcmdapi.Context{"dev": {Cluster: "envtest", AuthInfo: devUser}}
	kc.CurrentContext = "dev"
	devKubeconfig = filepath.Join(dir, "dev.kubeconfig")
	Expect(clientcmd.WriteToFile(*kc, devKubeconfig)).To(Succeed())
})
