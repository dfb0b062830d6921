package io.rpcc.spring.boot.autoconfigure.scan;

/** Not annotated: the scan leaves it out. */
public record NotAnRpccType(String value) {
}
