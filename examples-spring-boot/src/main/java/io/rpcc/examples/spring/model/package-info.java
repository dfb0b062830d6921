/** The sample's serializable types, registered on every node with {@code rpcc.types}. */
package io.rpcc.examples.spring.model;
