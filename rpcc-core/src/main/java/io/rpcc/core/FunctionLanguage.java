package io.rpcc.core;

/** The language a chaining function is written in. */
public enum FunctionLanguage {
    /** Java source, compiled in memory with {@code javax.tools} at the server that runs it. */
    JAVA
}
