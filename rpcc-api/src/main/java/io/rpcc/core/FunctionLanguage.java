package io.rpcc.core;

/** The language a chaining function is written in. */
public enum FunctionLanguage {
    /** Java source, compiled in memory with {@code javax.tools} at the server that runs it. */
    JAVA,
    /**
     * JavaScript run by GraalJS (module {@code rpcc-js}): a script that evaluates to a function
     * {@code (state, result) => nextHop}.
     */
    JS
}
