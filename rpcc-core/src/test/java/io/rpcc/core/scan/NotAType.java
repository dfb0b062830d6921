package io.rpcc.core.scan;

/** Not annotated: the scan leaves it out. */
public record NotAType(int x) {
}
