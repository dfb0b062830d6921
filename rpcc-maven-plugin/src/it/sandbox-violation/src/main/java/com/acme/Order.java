package com.acme;

import io.rpcc.core.RpccType;

@RpccType
public record Order(String id, long cents) {
}
