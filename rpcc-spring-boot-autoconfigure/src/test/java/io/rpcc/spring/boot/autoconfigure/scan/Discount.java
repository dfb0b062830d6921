package io.rpcc.spring.boot.autoconfigure.scan;

/** Implements an @RpccType interface without the annotation: the scan leaves it out. */
public record Discount(long cents) implements Priced {
}
