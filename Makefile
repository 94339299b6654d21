# podnetwork-operator Makefile (kubebuilder go/v3 style).
#
# Tools and control-plane binaries are built from the Go module proxy into a
# per-user cache (PODNETWORK_CACHE_DIR, default ~/.cache/podnetwork-operator)
# and linked into bin/, so fresh clones never rebuild what this machine built.

K8S_VERSION ?= v1.37.2
CONTROLLER_GEN_VERSION ?= v0.23.0
HELM_VERSION ?= v4.3.2
KWOK_VERSION ?= v0.8.0
# golangci-lint and kube-api-linter are pinned in hack/tools/golangci-kal/go.mod.

IMG ?= podnetwork-operator:dev
GO ?= go
SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
HELM ?= $(LOCALBIN)/helm
KWOK ?= $(LOCALBIN)/kwok
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint
ENVTEST_DIR ?= $(LOCALBIN)/k8s/$(K8S_VERSION)

# Paths written by `make manifests generate`; `make verify-generated` fails
# when they differ from what is committed.
GENERATED_PATHS ?= ':(glob)api/**/zz_generated.*.go' config charts/podnetwork-operator/crds charts/podnetwork-operator/templates/rbac/clusterrole.yaml charts/podnetwork-operator/templates/rbac/adapters-clusterrole.yaml

# Short fuzz runs inside `make test`; longer ones with `make fuzz FUZZTIME=5m`.
FUZZTIME ?= 10s
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
	$(CONTROLLER_GEN) rbac:roleName=podnetwork-operator crd paths="./api/..." paths="./controllers" paths="./internal/..." output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) rbac:roleName=podnetwork-operator-adapters paths="./controllers/adapterrbac" output:rbac:artifacts:config=config/rbac/adapters
	@hack/sync-chart.sh

.PHONY: generate
generate: controller-gen ## Generate deepcopy code.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: fmt
fmt: ## Run gofmt on the code.
	gofmt -s -w $$(git ls-files '*.go' | grep -v '^hack/tools/')

.PHONY: vet
vet: ## Run go vet.
	$(GO) vet ./...

.PHONY: lint
lint: ## Lint: go vet plus a gofmt check (golangci-lint is not required).
	$(GO) vet ./...
	@out="$$(gofmt -s -l $$(git ls-files '*.go'))"; if [[ -n "$$out" ]]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

.PHONY: lint-go
lint-go: golangci-lint ## golangci-lint (.golangci.yml) on every Go module, kube-api-linter (.golangci-kal.yml) on api/, license headers. Not in `make test` yet.
	@rc=0; \
	for mod in $$(git ls-files '*go.mod' | grep -v '^hack/tools/' | xargs -n1 dirname); do \
	  echo "lint-go: golangci-lint in $${mod}"; \
	  (cd "$${mod}" && $(GOLANGCI_LINT) run --config $(CURDIR)/.golangci.yml ./...) || rc=1; \
	done; \
	if [[ -f api/go.mod ]]; then kal_dir=api kal_pkgs=./...; else kal_dir=. kal_pkgs=./api/...; fi; \
	echo "lint-go: kube-api-linter on api/"; \
	(cd "$${kal_dir}" && $(GOLANGCI_LINT) run --config $(CURDIR)/.golangci-kal.yml "$${kal_pkgs}") || rc=1; \
	echo "lint-go: license headers (also in files goheader cannot see: those opening with //go:build)"; \
	hack/boilerplate.sh || rc=1; \
	exit $${rc}

.PHONY: verify-generated
verify-generated: manifests generate ## Fail when generated files are stale.
	@if [[ -n "$$(git status --porcelain -- $(GENERATED_PATHS))" ]]; then \
	  echo "Generated files are stale; run 'make manifests generate' and commit:"; \
	  git status --porcelain -- $(GENERATED_PATHS); git --no-pager diff --stat -- $(GENERATED_PATHS); exit 1; fi

.PHONY: test
test: test-assets verify-generated lint helm-lint ## Run every test with -race against a real kube-apiserver + etcd (and kube-controller-manager, kube-scheduler and kwok for the adapters' suite).
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh 2>/dev/null | tail -n1)" \
	  $(GO) test -race -count=1 $(TEST_FLAGS) ./...
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME)

.PHONY: fuzz
fuzz: ## Run every fuzz target for FUZZTIME (default 10s each).
	@for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    echo "fuzz $$pkg $$f ($(FUZZTIME))"; \
	    $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg; \
	  done; \
	done

##@ Build

.PHONY: build
build: manifests generate ## Build the manager binary.
	$(GO) build -o bin/manager .

.PHONY: run
run: manifests generate ## Run the manager against the cluster in ~/.kube/config.
	$(GO) run . --leader-elect=false

.PHONY: docker-build
docker-build: ## Build the container image (needs a Docker engine).
	docker build -t $(IMG) .

##@ Control plane and tools

.PHONY: envtest-assets
envtest-assets: ## Build kube-apiserver and etcd from Go modules (first time only) and link them into bin/.
	@hack/control-plane.sh kube-apiserver etcd >/dev/null

.PHONY: test-assets
test-assets: consumer-assets ## What `make test` runs against: kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kwok and the consumer-assets.
	@hack/control-plane.sh kube-apiserver etcd kube-controller-manager kube-scheduler >/dev/null
	@$(MAKE) --no-print-directory kwok

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

.PHONY: kwok
kwok: ## Install kwok and its stage definitions into bin/.
	@hack/go-install.sh kwok sigs.k8s.io/kwok/cmd/kwok $(KWOK_VERSION)
	@hack/kwok-stages.sh $(KWOK_VERSION)

.PHONY: golangci-lint
golangci-lint: ## Build golangci-lint with kube-api-linter compiled in into bin/ (first time ~5 min).
	@hack/golangci-lint.sh >/dev/null

.PHONY: helm-lint
helm-lint: helm ## Lint the chart and render it with the default values and variants.
	@hack/helm-lint.sh

##@ Scenarios

.PHONY: demo
demo: envtest-assets helm ## Run the demo on an embedded control plane (see README).
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh 2>/dev/null | tail -n1)" $(GO) run ./test/demo $(DEMO_FLAGS)

.PHONY: test-e2e
test-e2e: envtest-assets helm ## End-to-end: the chart in a real control plane, two operator processes, the story, RBAC, failover, upgrade, uninstall.
	$(GO) build -o bin/manager .
	KUBEBUILDER_ASSETS="$$(hack/control-plane.sh 2>/dev/null | tail -n1)" \
	  $(GO) test -race -count=1 -tags e2e -timeout 20m ./test/e2e/ -ginkgo.v

##@ Benchmarks

# make bench compares node CIDR assignment with kube-controller-manager
# (docs/performance.md). It is never part of make test: it takes about
# 13 minutes on 2 cores. BENCH_FLAGS go to bin/bench/nodecidr (e.g.
# BENCH_FLAGS=-quick for a 1-minute run, or "-throttled-max=0 -doc
# docs/performance.md" for the full run the documentation shows);
# MICROBENCH_FLAGS to the Go microbenchmarks.
BENCH_FLAGS ?=
MICROBENCH_FLAGS ?= -count=6 -benchtime=0.2s
BENCH_DIR ?= $(LOCALBIN)/bench
BENCHSTAT ?= $(LOCALBIN)/benchstat
BENCHSTAT_VERSION ?= v0.0.0-20260908200009-22c9c6c9d4da

.PHONY: bench
bench: bench-micro bench-e2e ## Allocator microbenchmarks, then the end-to-end comparison with kube-controller-manager.

.PHONY: bench-micro
bench-micro: benchstat ## Allocator and rebuild microbenchmarks against kube-controller-manager's cidrset (output in bin/bench/).
	@mkdir -p $(BENCH_DIR)
	cd test/bench && $(GO) test -run '^$$' -bench . -benchmem $(MICROBENCH_FLAGS) . | tee $(BENCH_DIR)/micro.txt
	$(GO) test -run '^$$' -bench 'BenchmarkNodeIPAMRebuild|BenchmarkNodeTransform' -benchmem -benchtime=0.3s ./controllers/ | tee $(BENCH_DIR)/controllers.txt
	$(BENCHSTAT) -col /impl $(BENCH_DIR)/micro.txt | tee $(BENCH_DIR)/micro-benchstat.txt

.PHONY: bench-e2e
bench-e2e: ## End-to-end node CIDR comparison on a local control plane (BENCH_FLAGS=-quick for a short run).
	@hack/control-plane.sh kube-apiserver etcd kube-controller-manager >/dev/null
	$(GO) build -o bin/manager .
	@mkdir -p $(BENCH_DIR)
	cd test/bench && $(GO) build -o $(BENCH_DIR)/nodecidr ./cmd/nodecidr
	$(BENCH_DIR)/nodecidr $(BENCH_FLAGS)

.PHONY: benchstat
benchstat: ## Install benchstat into bin/.
	@hack/go-install.sh benchstat golang.org/x/perf/cmd/benchstat $(BENCHSTAT_VERSION)
