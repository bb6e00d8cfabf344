#!/bin/sh
# The platform's Kafka topics with plain kafka-topics commands, for brokers without Strimzi (compose runs
# this once Kafka is healthy). The same topics, partitions and retention as kubernetes/kafka/topics.yaml;
# docker/test/manifests.spec.ts checks that the two agree. Idempotent (--if-not-exists).
#   create-topics.sh BOOTSTRAP_SERVER [REPLICATION_FACTOR]
set -eu
bootstrap="${1:?usage: create-topics.sh BOOTSTRAP_SERVER [REPLICATION_FACTOR]}"
replicas="${2:-1}"
kafka_topics="${KAFKA_TOPICS:-/opt/kafka/bin/kafka-topics.sh}"

topic() {
  "$kafka_topics" --bootstrap-server "$bootstrap" --create --if-not-exists --topic "$1" --partitions "$2" \
    --replication-factor "$replicas" --config cleanup.policy=delete --config retention.ms="$3"
}

topic relay.control.v1 6 -1
topic relay.control.v1.dlq 1 2592000000
topic relay.workspace-frames.v1 24 604800000
topic relay.workspace-frames.v1.dlq 1 2592000000
topic relay.companion-inbound.v1 24 3600000
topic relay.companion-inbound.v1.dlq 1 2592000000
topic shield.cases.v1 12 -1
topic shield.cases.v1.dlq 1 2592000000
topic registry.cards.v1 12 -1
topic registry.cards.v1.dlq 1 2592000000
topic console.accounts.v1 3 -1
topic console.accounts.v1.dlq 1 2592000000
topic console.workspaces.v1 6 -1
topic console.workspaces.v1.dlq 1 2592000000
