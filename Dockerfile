# The ebb image: the one static binary, nothing else (docs/kubernetes.md,
# "The image"). The AM pod runs it as is; worker pods run DAG commands, so
# a worker image is this one with the commands' programs added
# (mr3.k8s.pod.worker.image). internal/image/dockerfile_test.go builds the
# binary with the build line below and runs it in an empty root as the
# user below: keep the three in step.
ARG GO_VERSION=1.26
FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -ldflags "-s -w -X main.Version=${VERSION}" -o /out/ebb ./cmd/ebb
# An empty /tmp, writable by everyone as on any Linux system (scratch has
# none; Go's os.TempDir is /tmp).
RUN mkdir -m 1777 /out/tmp

FROM scratch
COPY --from=build /out/ebb /usr/local/bin/ebb
COPY --from=build /out/tmp /tmp
ENV PATH=/usr/local/bin
# A user with no name and no home: nothing in the image is its.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/ebb"]
