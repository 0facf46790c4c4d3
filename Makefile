# `make test` is the one command that runs every test (CI runs it too).
.PHONY: test build bench proto

build:
	go build ./...

test:
	bash scripts/test.sh

bench:
	go test -run XXX -bench . -benchtime 2x ./am/core/ ./packing/

proto:
	scripts/genproto.sh
