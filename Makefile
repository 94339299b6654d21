# podnetwork-operator Makefile (kubebuilder go/v3 style).
#
# Tools and control-plane binaries are built from the Go module proxy into a
# per-user cache (PODNETWORK_CACHE_DIR, default ~/.cache/podnetwork-operator)
# and linked into bin/, so fresh clones never rebuild what this machine built.

K8S_VERSION ?= v1.37.2
CONTROLLER_GEN_VERSION ?= v0.23.0
HELM_VERSION ?= v4.3.2
KWOK_VERSION ?= v0.8.0
# promtool from the Prometheus Go module (its v0.3xx versions are Prometheus 3.x).
PROMTOOL_VERSION ?= v0.316.0
# Without Prometheus's service discoveries (its remove_all_sd build tag):
# `promtool test rules` and `check rules` use none, and the cloud SDKs and
# client-go they pull in were most of promtool's build.
PROMTOOL_TAGS ?= remove_all_sd
# golangci-lint and kube-api-linter are pinned in hack/tools/golangci-kal/go.mod.

# The operator image: `make image` builds IMG; `make release` builds
# IMAGE_REPO:VERSION. Registry hosts here are placeholders: use yours.
IMAGE_REPO ?= podnetwork-operator
VERSION ?= dev
IMG ?= $(IMAGE_REPO):$(VERSION)
# Platforms of `make image` and `make release`; PLATFORMS=host builds only
# this machine's architecture (what `make test-e2e` runs).
PLATFORMS ?= linux/amd64,linux/arm64
# With PIN_DIGEST=1, `make release` also writes the image digest into the
# chart, for images pulled from a registry (kind and ctr import by tag).
PIN_DIGEST ?=
# The kubectl plugin's archives of `make release` (hack/krew): its
# platforms, where they are downloaded from (a placeholder: use yours; the
# krew manifest points there) and the LICENSE packed with the binary.
PLUGIN_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
PLUGIN_BASE_URL ?= https://downloads.example/podnetwork-operator/v$(VERSION)
PLUGIN_LICENSE ?= $(firstword $(wildcard LICENSE) hack/krew/LICENSE)
GO ?= go
SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
HELM ?= $(LOCALBIN)/helm
PROMTOOL ?= $(LOCALBIN)/promtool
KWOK ?= $(LOCALBIN)/kwok
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint
ENVTEST_DIR ?= $(LOCALBIN)/k8s/$(K8S_VERSION)
IMAGE_TOOL ?= $(LOCALBIN)/image-tool
IMAGE_DIR ?= $(LOCALBIN)/image
RELEASE_DIR ?= $(LOCALBIN)/release

# Paths written by `make manifests generate`; `make verify-generated` fails
# when they differ from what is committed.
GENERATED_PATHS ?= ':(glob)api/**/zz_generated.*.go' config charts/podnetwork-operator/crds charts/podnetwork-operator/templates/rbac/clusterrole.yaml charts/podnetwork-operator/templates/rbac/adapters-clusterrole.yaml charts/podnetwork-operator/templates/rbac/audit-clusterrole.yaml

# Nested Go modules that `make vet`, `make lint` and `make test` enter
# besides the root one: the API and the consumer client plugins import, and
# the sample plugin that imports nothing else (its test needs the
# kube-apiserver of KUBEBUILDER_ASSETS).
API_MODULES ?= api api/consumer test/sampleplugin

# Short fuzz runs inside `make test`, counted in executions: a duration
# (-fuzztime=10s) races Go's fuzz coordinator at the deadline, which then fails
# the target with "context deadline exceeded" and no crasher (golang/go#75804,
# fixed in Go 1.27). Each target runs FUZZ_BUDGET_<target> executions, or
# FUZZ_BUDGET, about ten seconds on a 2-core machine. Longer runs:
# `make fuzz FUZZTIME=5m` (every target, the same duration or count).
FUZZTIME ?=
FUZZ_BUDGET ?= 50000x
export FUZZ_BUDGET_FuzzAllocator ?= 20000x
export FUZZ_BUDGET_FuzzComputeUntrustedInput ?= 30000x
export FUZZ_BUDGET_FuzzSetClusterCIDR ?= 15000x
export FUZZ_BUDGET_FuzzLegalHistories ?= 5000x
TEST_FLAGS ?=

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate CRDs and RBAC from kubebuilder markers (config/ and the chart).
	@# api/ is its own module, which a run from the root does not load properly: generate its CRDs from its directory.
	cd api && $(CONTROLLER_GEN) crd paths="./..." output:crd:artifacts:config=../config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=podnetwork-operator paths="./controllers" paths="./controllers/adapters" paths="./controllers/lifecycle" paths="./controllers/nodeipam" paths="./controllers/autoscale" paths="./controllers/drain" paths="./internal/..." output:rbac:artifacts:config=config/rbac
	@# The audit lists every pod and NetworkPolicy: its markers make a ClusterRole of their own, which the chart renders only with audit.enabled.
	$(CONTROLLER_GEN) rbac:roleName=podnetwork-operator-audit paths="./controllers/audit" output:rbac:artifacts:config=config/rbac/audit
	@# The adapters' ClusterRole (config/rbac/adapters) is written by hack/chartgen, run by sync-chart.sh, from internal/adapters/registry.
	@hack/sync-chart.sh

.PHONY: generate
generate: controller-gen ## Generate deepcopy code.
	cd api && $(CONTROLLER_GEN) object:headerFile="../hack/boilerplate.go.txt" paths="./..."

.PHONY: fmt
fmt: ## Run gofmt on the code.
	gofmt -s -w $$(git ls-files '*.go' | grep -v '^hack/tools/')

.PHONY: vet
vet: ## Run go vet.
	$(GO) vet ./...
	@for m in $(API_MODULES); do echo "cd $$m && $(GO) vet ./..."; (cd $$m && $(GO) vet ./...); done

.PHONY: lint
lint: fmt-check ## Lint: go vet plus a gofmt check (golangci-lint is not required).
	$(GO) vet ./...
	@for m in $(API_MODULES); do echo "cd $$m && $(GO) vet ./..."; (cd $$m && $(GO) vet ./...); done
	cd hack/image && $(GO) vet ./...

.PHONY: fmt-check
fmt-check: ## Fail when a Go file is not gofmt -s formatted.
	@out="$$(gofmt -s -l $$(git ls-files '*.go'))"; if [[ -n "$$out" ]]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# golangci-lint runs once per Go module (the API, the consumer client, the
# sample plugin, test/realconfig, test/bench and hack/image are modules of
# their own, found from their go.mod, so a new module is linted without
# editing this list); the tool modules under hack/tools/ are not ours.
# GOLANGCI_LINT_FLAGS: --timeout covers a cold analysis cache on 2 cores
# (~5 min for the whole tree; warm, it takes well under a minute), and
# golangci-lint uses every core unless given --concurrency.
GOLANGCI_LINT_FLAGS ?= --timeout=10m
# golangci-lint type-checks every dependency from the export data `go list
# -export` compiles into the Go build cache. With -race in GOFLAGS it
# compiles them as `go test -race` does, so make test compiles each
# dependency once, not once for the linters and once more for the tests (on a
# fresh 2-core machine the second compilation of test/realconfig's copy of
# kube-proxy and flannel alone took 4 minutes). The race build tag it sets
# selects no file of ours.
LINT_GOFLAGS ?= -race

.PHONY: lint-go
lint-go: golangci-lint ## golangci-lint (.golangci.yml) on every Go module and the license headers. Part of `make test`.
	@rc=0; \
	for mod in $$(git ls-files '*go.mod' | grep -v '^hack/tools/' | xargs -n1 dirname); do \
	  echo "lint-go: golangci-lint in $${mod}"; \
	  (cd "$${mod}" && GOFLAGS="$(LINT_GOFLAGS)" $(GOLANGCI_LINT) run $(GOLANGCI_LINT_FLAGS) --config $(CURDIR)/.golangci.yml ./...) || rc=1; \
	done; \
	echo "lint-go: license headers (also in files goheader cannot see: those opening with //go:build)"; \
	hack/boilerplate.sh || rc=1; \
	exit $${rc}

# kube-api-linter on the API types: the Kubernetes API conventions, with the
# settings and the few exemptions (each with its reason) in .golangci-kal.yml.
.PHONY: lint-api
lint-api: golangci-lint ## kube-api-linter (.golangci-kal.yml) on api/. Part of `make test`.
	@if [[ -f api/go.mod ]]; then kal_dir=api kal_pkgs=./...; else kal_dir=. kal_pkgs=./api/...; fi; \
	echo "lint-api: kube-api-linter on api/"; \
	cd "$${kal_dir}" && GOFLAGS="$(LINT_GOFLAGS)" $(GOLANGCI_LINT) run $(GOLANGCI_LINT_FLAGS) --config $(CURDIR)/.golangci-kal.yml "$${kal_pkgs}"

.PHONY: verify-generated
verify-generated: manifests generate ## Fail when generated files are stale.
	@if [[ -n "$$(git status --porcelain -- $(GENERATED_PATHS))" ]]; then \
	  echo "Generated files are stale; run 'make manifests generate' and commit:"; \
	  git status --porcelain -- $(GENERATED_PATHS); git --no-pager diff --stat -- $(GENERATED_PATHS); exit 1; fi

# The quick loop: the pure tests, which need no asset, no root and no
# control plane (the README's "Development" section gives their times).
# UNIT_PKGS are the root module's packages without an envtest suite; the API
# modules' own tests are pure too (the sample plugin's is not: it runs in
# test-api). A package that starts a control plane belongs in test/integration.
UNIT_PKGS ?= ./internal/... ./controllers/... ./cmd/... ./hack/chartgen/... . ./test/framework/... ./test/integration/crd/...
UNIT_API_MODULES ?= api api/consumer

.PHONY: test-unit
test-unit: ## The pure tests with -race: api/, internal/, the controllers' and the test framework's own; no assets, no root.
	$(GO) test -race -count=1 $(TEST_FLAGS) $(UNIT_PKGS)
	@for m in $(UNIT_API_MODULES); do echo "cd $$m && $(GO) test -race -count=1 ./..."; (cd $$m && $(GO) test -race -count=1 $(TEST_FLAGS) ./...); done

.PHONY: test-integration
test-integration: test-assets ## The envtest suites of test/integration against a real kube-apiserver + etcd (the adapters' suite needs root).
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh 2>/dev/null | tail -n1)" \
	  $(GO) test -race -count=1 $(TEST_FLAGS) ./test/integration/...

# make test runs everything: the root module's tests are unit and integration
# at once (one `go test ./...`, so both share one build), and a root-only
# suite fails rather than skips (PODNETWORK_REQUIRE_ROOT). It runs go vet's
# analyzers through golangci-lint's govet (lint-go, every module), not
# through `make lint` too: go vet would compile every dependency once more
# without -race, for the same findings.
.PHONY: test
test: test-assets verify-generated fmt-check lint-go lint-api helm-lint ## Run every test with -race against a real kube-apiserver + etcd (and kube-controller-manager, kube-scheduler and kwok for the adapters' suite).
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh 2>/dev/null | tail -n1)" PODNETWORK_REQUIRE_ROOT=1 \
	  $(GO) test -race -count=1 $(TEST_FLAGS) ./...
	@$(MAKE) --no-print-directory test-api
	@$(MAKE) --no-print-directory test-realconfig
	@$(MAKE) --no-print-directory test-image
	@$(MAKE) --no-print-directory fuzz

# The API and the consumer client are their own modules (so a plugin does not
# inherit the operator's dependencies), and so is the sample plugin that
# proves it; the root `go test ./...` does not enter them: test them here.
.PHONY: test-api
test-api: envtest-assets ## Test the API module, the consumer client and the sample plugin against a real kube-apiserver.
	@for m in $(API_MODULES); do echo "cd $$m && $(GO) test -race -count=1 ./..."; \
	  (cd $$m && KUBEBUILDER_ASSETS="$$($(CURDIR)/hack/control-plane.sh 2>/dev/null | tail -n1)" $(GO) test -race -count=1 ./...); done

# The root `go test ./...` does not enter nested modules; test/realconfig is
# one so that the operator's go.mod never requires k8s.io/kubernetes or flannel.
.PHONY: test-realconfig
test-realconfig: ## Load every golden file of the kube-proxy and flannel adapters with real kube-proxy's and flannel's own loaders.
	cd test/realconfig && $(GO) test -race -count=1 ./...

# hack/image is its own module, which `go test ./...` above does not enter.
# Its tests compile the operator (the host architecture only, unless
# IMAGE_TEST_ALL_PLATFORMS=1) and gzip the image, so they run without -race,
# which would only slow the compression down.
.PHONY: test-image
test-image: helm ## Image tests: config, no shell, labels, reproducible digest, push to an in-process registry and pull what the packaged chart names.
	cd hack/image && HELM=$(HELM) $(GO) test -count=1 ./...

.PHONY: fuzz
fuzz: ## Run every fuzz target for its budget of executions (or FUZZTIME each, e.g. FUZZTIME=5m).
	@for entry in $$($(GO) list -f '{{.ImportPath}}={{.Dir}}' ./...); do \
	  pkg=$${entry%%=*}; dir=$${entry#*=}; \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    budget="$(FUZZTIME)"; \
	    [ -n "$$budget" ] || budget=$$(printenv "FUZZ_BUDGET_$$f" || echo "$(FUZZ_BUDGET)"); \
	    echo "fuzz $$pkg $$f ($$budget)"; \
	    $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime="$$budget" $$pkg; \
	  done; \
	done

##@ Build

.PHONY: build
build: manifests generate ## Build the manager binary.
	$(GO) build -o bin/manager .

.PHONY: run
run: manifests generate ## Run the manager against the cluster in ~/.kube/config.
	$(GO) run . --leader-elect=false

.PHONY: image-tool
image-tool: ## Build bin/image-tool, the image builder (hack/image).
	cd hack/image && $(GO) build -o $(IMAGE_TOOL) .

.PHONY: image
image: image-tool ## Build the operator image without Docker into bin/image/: oci-layout/, podnetwork-operator.tar (OCI archive), digest.
	$(IMAGE_TOOL) build -root $(CURDIR) -out $(IMAGE_DIR) -ref $(IMG) -version $(VERSION) -platforms $(PLATFORMS)

.PHONY: image-push
image-push: image ## Push the image to IMG (e.g. IMAGE_REPO=registry.example/podnetwork-operator VERSION=0.2.0); prints it by digest.
	$(IMAGE_TOOL) push -layout $(IMAGE_DIR)/oci-layout $(IMG)

# make release stamps a copy of the chart in bin/release/chart, never the
# committed one: the working tree stays clean, so `make verify-generated`
# and the tests keep seeing the chart as committed, and two releases never
# race on the same files. Bump the committed Chart.yaml in the release
# commit if you want the repository to carry the version too.
.PHONY: release
release: image-tool helm ## Release VERSION=x.y.z into bin/release/: image archive, chart pointing at IMAGE_REPO:VERSION, kubectl plugin archives and krew manifest (plugin/), SHA256SUMS.
	@if [[ ! "$(VERSION)" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$$ ]]; then \
	  echo "usage: make release VERSION=x.y.z [IMAGE_REPO=registry.example/podnetwork-operator] [PIN_DIGEST=1] (got VERSION=$(VERSION))" >&2; exit 1; fi
	rm -rf $(RELEASE_DIR)
	$(IMAGE_TOOL) build -root $(CURDIR) -out $(RELEASE_DIR)/image -tar $(RELEASE_DIR)/podnetwork-operator-image-$(VERSION).tar \
	  -ref $(IMAGE_REPO):$(VERSION) -version $(VERSION) -platforms $(PLATFORMS)
	$(IMAGE_TOOL) chart -chart charts/podnetwork-operator -out $(RELEASE_DIR)/chart/podnetwork-operator \
	  -version $(VERSION) -repository $(IMAGE_REPO) $(if $(PIN_DIGEST),-digest "$$(cat $(RELEASE_DIR)/image/digest)")
	@# helm stamps SOURCE_DATE_EPOCH (as the image build does: else HEAD's commit time) into the .tgz, so it is reproducible too.
	SOURCE_DATE_EPOCH="$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || echo 0)}" \
	  $(HELM) package $(RELEASE_DIR)/chart/podnetwork-operator -d $(RELEASE_DIR)
	@# The kubectl plugin: one static binary per PLUGIN_PLATFORMS, packed with the LICENSE into
	@# bin/release/plugin/kubectl-podnetwork_vVERSION_OS_ARCH.tar.gz, their SHA256SUMS and the krew
	@# manifest podnetwork.yaml pointing at PLUGIN_BASE_URL (hack/krew).
	for p in $(PLUGIN_PLATFORMS); do \
	  CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -o $(RELEASE_DIR)/plugin/bin/$${p%/*}-$${p#*/}/kubectl-podnetwork ./cmd/kubectl-podnetwork; done
	SOURCE_DATE_EPOCH="$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || echo 0)}" \
	  $(GO) run ./hack/krew -version $(VERSION) -base-url $(PLUGIN_BASE_URL) -license $(PLUGIN_LICENSE) -out $(RELEASE_DIR)/plugin \
	  $(foreach p,$(PLUGIN_PLATFORMS),$(p)=$(RELEASE_DIR)/plugin/bin/$(subst /,-,$(p))/kubectl-podnetwork)
	rm -rf $(RELEASE_DIR)/plugin/bin
	$(IMAGE_TOOL) checksums -o $(RELEASE_DIR)/SHA256SUMS $(RELEASE_DIR)/*.tar $(RELEASE_DIR)/*.tgz $(RELEASE_DIR)/plugin/*.tar.gz
	@cd $(RELEASE_DIR) && echo "release $(VERSION) in $(RELEASE_DIR):" && cat SHA256SUMS && echo "image $(IMAGE_REPO):$(VERSION)@$$(cat image/digest)"

.PHONY: docker-build
docker-build: ## Build the container image with a Docker engine instead (same binary and layout as make image).
	docker build -t $(IMG) .

##@ Control plane and tools

.PHONY: envtest-assets
envtest-assets: ## Build kube-apiserver and etcd from Go modules (first time only) and link them into bin/.
	@hack/control-plane.sh kube-apiserver etcd >/dev/null

# The builds of test-assets run side by side, TEST_ASSETS_JOBS at once: each
# is mostly its own module's packages, and on a fresh machine each also waits
# for the module proxy, so one build's downloads and final link overlap
# another's compilation instead of leaving the cores idle. Their progress
# lines interleave as they come, each prefixed with the script that prints
# it.
TEST_ASSETS_JOBS ?= 4

.PHONY: test-assets
test-assets: ## What `make test` runs against: kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kubectl (the autoscaling suite applies manifests with it), kwok, helm, promtool, Karpenter's kwok provider, the consumer-assets, and the linter and generator it runs.
	@$(MAKE) --no-print-directory -j$(TEST_ASSETS_JOBS) k8s-binaries host-packages flanneld kwok helm promtool karpenter golangci-lint controller-gen

.PHONY: k8s-binaries
k8s-binaries: ## Build kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kubectl and kube-proxy (one go build for the Kubernetes ones).
	@hack/control-plane.sh kube-apiserver etcd kube-controller-manager kube-scheduler kubectl kube-proxy >/dev/null

.PHONY: host-packages
host-packages: ## Install the iptables and nftables packages kube-proxy and flanneld need on the host.
	@hack/host-packages.sh

.PHONY: flanneld
flanneld: ## Build flanneld from the hack/tools/flannel module into bin/.
	@hack/consumers.sh flanneld >/dev/null

.PHONY: consumer-assets
consumer-assets: ## The real consumers the tests run: kube-proxy and flanneld built from Go modules, and the iptables/nftables packages they need.
	@hack/host-packages.sh
	@hack/control-plane.sh kube-proxy >/dev/null
	@hack/consumers.sh flanneld >/dev/null

.PHONY: cluster-assets
cluster-assets: ## Also build kube-controller-manager, kube-scheduler and kubectl, and install kwok.
	@hack/control-plane.sh kube-apiserver etcd kube-controller-manager kube-scheduler kubectl >/dev/null
	@$(MAKE) --no-print-directory kwok

.PHONY: controller-gen
controller-gen: ## Install controller-gen into bin/.
	@hack/go-install.sh controller-gen sigs.k8s.io/controller-tools/cmd/controller-gen $(CONTROLLER_GEN_VERSION)

.PHONY: helm
helm: ## Install helm into bin/.
	@hack/go-install.sh helm helm.sh/helm/v4/cmd/helm $(HELM_VERSION)

.PHONY: promtool
promtool: ## Install promtool into bin/ (the chart's alert rules are tested with it; first time ~2 min).
	@hack/go-install.sh promtool github.com/prometheus/prometheus/cmd/promtool $(PROMTOOL_VERSION) $(PROMTOOL_TAGS)

.PHONY: kwok
kwok: ## Install kwok and its stage definitions into bin/.
	@hack/go-install.sh kwok sigs.k8s.io/kwok/cmd/kwok $(KWOK_VERSION)
	@hack/kwok-stages.sh $(KWOK_VERSION)

# Karpenter's kwok cloud provider, the real Karpenter of the Karpenter suite
# (test/integration/karpenter), from the hack/tools/karpenter module. Its
# go.mod asks for a newer Go: hack/karpenter.sh runs that build, and only it,
# with GOTOOLCHAIN set to it, which the go command fetches through the
# module proxy the first time.
.PHONY: karpenter
karpenter: ## Build Karpenter's kwok provider into bin/karpenter-kwok and copy its CRDs into bin/karpenter-crds (first time 3 to 9 min on 2 cores).
	@hack/karpenter.sh >/dev/null

.PHONY: golangci-lint
golangci-lint: ## Build golangci-lint with kube-api-linter compiled in into bin/ (first time ~5 min).
	@hack/golangci-lint.sh >/dev/null

.PHONY: helm-lint
helm-lint: helm ## Lint the chart and render it with the default values and variants.
	@hack/helm-lint.sh

.PHONY: test-alerts
test-alerts: helm promtool ## The chart's alert rules under the real `promtool test rules`, their runbooks, and the metrics they and the dashboard use (part of `make test`).
	$(GO) test -count=1 ./test/integration/chart/

##@ Scenarios

.PHONY: demo
demo: envtest-assets helm ## Run the demo on an embedded control plane (see README).
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh 2>/dev/null | tail -n1)" $(GO) run ./test/e2e/demo $(DEMO_FLAGS)

.PHONY: test-e2e
# The operator processes run the binary extracted from the image's layer
# (this machine's architecture, built into its own directory so a
# multi-arch `make image` in bin/image is left alone): a broken image fails
# the suite.
E2E_IMAGE_DIR ?= $(LOCALBIN)/e2e-image

.PHONY: test-e2e
test-e2e: envtest-assets helm image-tool ## End-to-end: the chart in a real control plane, two operator processes running the image's binary, the story, RBAC, failover, upgrade, uninstall.
	$(IMAGE_TOOL) build -root $(CURDIR) -out $(E2E_IMAGE_DIR) -tar none -ref $(IMG) -version $(VERSION) -platforms host
	$(IMAGE_TOOL) extract -layout $(E2E_IMAGE_DIR)/oci-layout -o $(E2E_IMAGE_DIR)/manager
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh 2>/dev/null | tail -n1)" E2E_MANAGER=$(E2E_IMAGE_DIR)/manager \
	  $(GO) test -race -count=1 -tags e2e -timeout 20m ./test/e2e/ -ginkgo.v

##@ Fault injection

# make chaos-short is the chaos suite CI runs (test/chaos, docs/reliability.md):
# about a minute of faults on a few hundred nodes with fixed seeds (dual-stack
# ranges, the kube-proxy and flannel adapters, the autoscaler in Auto mode,
# Wait, ReuseOldest and a recycle delay of 0 in turn; the operators speak
# HTTP/2 through the fault proxy), then the
# same run once per seeded bug against the operator built with them (-tags
# chaosbug, PODNETWORK_CHAOSBUG picks the active one), each of which the
# invariant tied to it must catch (CHAOS_FLAGS=-bugs=<name> runs only that
# one); about 8 minutes on 2 cores. make chaos is the acceptance run (the same
# features on 5,000 nodes, 100 leader kills, 10 kube-apiserver and 5 etcd
# restarts; about 35 minutes on 2 cores, not in CI) and writes its table into
# docs/reliability.md. A failing run prints its seed: reproduce it with
# CHAOS_SEEDS=<seed>.
CHAOS_DIR ?= $(LOCALBIN)/chaos
CHAOS_SHORT_SEEDS ?= 1
CHAOS_SEEDS ?= 1
CHAOS_BUG_SEED ?= 1
CHAOS_FLAGS ?=
# The chaos binaries are built with the image's settings (hack/image): the
# operator they run is then the one users run, and on a fresh machine the
# build reuses what `make test`'s image tests compiled instead of compiling
# every dependency once more.
CHAOS_GO_BUILD ?= CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=false

.PHONY: chaos-build
chaos-build: ## Build the operator, the operator with the seeded bugs, and the chaos runner (bin/chaos/chaos).
	@hack/control-plane.sh kube-apiserver etcd kube-controller-manager kube-scheduler >/dev/null
	@$(MAKE) --no-print-directory kwok
	$(CHAOS_GO_BUILD) -o bin/manager .
	$(CHAOS_GO_BUILD) -tags chaosbug -o bin/manager-chaosbug .
	$(CHAOS_GO_BUILD) -o $(CHAOS_DIR)/chaos ./test/chaos/cmd/chaos

.PHONY: chaos-short
chaos-short: chaos-build ## Short chaos run with fixed seeds (CI), then each seeded bug; fails on any violation, too few reuses or a bug its invariant misses.
	$(CHAOS_DIR)/chaos -config short -seeds $(CHAOS_SHORT_SEEDS) -operator bin/manager \
	  -bug-operator bin/manager-chaosbug -bug-seed $(CHAOS_BUG_SEED) -work $(CHAOS_DIR) \
	  -command "make chaos-short CHAOS_SHORT_SEEDS=$(CHAOS_SHORT_SEEDS) CHAOS_BUG_SEED=$(CHAOS_BUG_SEED)" $(CHAOS_FLAGS)

.PHONY: chaos
chaos: chaos-build ## Long chaos run (not in CI), then each seeded bug; writes the table into docs/reliability.md.
	$(CHAOS_DIR)/chaos -config long -seeds $(CHAOS_SEEDS) -operator bin/manager \
	  -bug-operator bin/manager-chaosbug -bug-seed $(CHAOS_BUG_SEED) -work $(CHAOS_DIR) \
	  -doc docs/reliability.md -command "make chaos CHAOS_SEEDS=$(CHAOS_SEEDS) CHAOS_BUG_SEED=$(CHAOS_BUG_SEED)" $(CHAOS_FLAGS)

##@ Benchmarks

# make bench compares node CIDR assignment with kube-controller-manager
# (docs/performance.md). It is never part of make test: it takes about
# 13 minutes on 2 cores. BENCH_FLAGS go to bin/bench/nodecidr (e.g.
# BENCH_FLAGS=-quick for a 1-minute run, or "-throttled-max=0 -doc
# docs/performance.md" for the full run the documentation shows; every
# finished run is appended to bin/bench/nodecidr.jsonl and the same flags
# with -resume go on with an interrupted run); MICROBENCH_FLAGS to the Go
# microbenchmarks.
BENCH_FLAGS ?=
MICROBENCH_FLAGS ?= -count=6 -benchtime=0.2s
BENCH_DIR ?= $(LOCALBIN)/bench
BENCHSTAT ?= $(LOCALBIN)/benchstat
BENCHSTAT_VERSION ?= v0.0.0-20260908200009-22c9c6c9d4da

.PHONY: bench
bench: bench-micro bench-e2e bench-autoscale ## Allocator microbenchmarks, the end-to-end comparison with kube-controller-manager, then the autoscaling benchmark.

.PHONY: bench-micro
bench-micro: benchstat ## Allocator and rebuild microbenchmarks against kube-controller-manager's cidrset (output in bin/bench/).
	@mkdir -p $(BENCH_DIR)
	cd test/bench && $(GO) test -run '^$$' -bench . -benchmem $(MICROBENCH_FLAGS) . | tee $(BENCH_DIR)/micro.txt
	$(GO) test -run '^$$' -bench 'BenchmarkNodeIPAMRebuild|BenchmarkNodeTransform' -benchmem -benchtime=0.3s ./controllers/nodeipam/ ./controllers/watches/ | tee $(BENCH_DIR)/controllers.txt
	$(BENCHSTAT) -col /impl $(BENCH_DIR)/micro.txt | tee $(BENCH_DIR)/micro-benchstat.txt

.PHONY: bench-e2e
bench-e2e: ## End-to-end node CIDR comparison on a local control plane (BENCH_FLAGS=-quick for a short run).
	@hack/control-plane.sh kube-apiserver etcd kube-controller-manager kube-scheduler >/dev/null
	$(GO) build -trimpath -buildvcs=false -o bin/manager .
	@mkdir -p $(BENCH_DIR)
	cd test/bench && $(GO) build -o $(BENCH_DIR)/nodecidr ./cmd/nodecidr
	$(BENCH_DIR)/nodecidr $(BENCH_FLAGS)

# The autoscaling benchmark (docs/performance.md, "Autoscaling"): 2,000
# nodes at 50/s onto a small range, two consumers acking after 2 s, with and
# without the autoscaler. AUTOSCALE_BENCH_FLAGS go to bin/bench/nodecidr
# (e.g. "-doc docs/performance.md" to rewrite the generated block).
AUTOSCALE_BENCH_FLAGS ?=

.PHONY: bench-autoscale
bench-autoscale: ## Autoscaling benchmark: nodes that ever waited for a block, and the longest wait, with and without the autoscaler (about 3 min).
	@hack/control-plane.sh kube-apiserver etcd >/dev/null
	$(GO) build -o bin/manager .
	@mkdir -p $(BENCH_DIR)
	cd test/bench && $(GO) build -o $(BENCH_DIR)/nodecidr ./cmd/nodecidr
	$(BENCH_DIR)/nodecidr -autoscale $(AUTOSCALE_BENCH_FLAGS)

.PHONY: benchstat
benchstat: ## Install benchstat into bin/.
	@hack/go-install.sh benchstat golang.org/x/perf/cmd/benchstat $(BENCHSTAT_VERSION)
