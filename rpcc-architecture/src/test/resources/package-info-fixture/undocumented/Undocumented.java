package undocumented;

/** Fixture: its package has no package-info.java. */
class Undocumented {
}
