package io.rpcc.js.internal;

/** A read-only JavaScript view of a Java value; going back to Java yields the value itself. */
interface GuestView {
    /** The Java value behind the view. */
    Object host();
}
