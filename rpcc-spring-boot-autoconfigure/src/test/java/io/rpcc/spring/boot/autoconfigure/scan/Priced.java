package io.rpcc.spring.boot.autoconfigure.scan;

import io.rpcc.core.RpccType;

/** An annotated interface: registered itself, its implementations are not (the annotation is not inherited). */
@RpccType
public interface Priced {
    long cents();
}
