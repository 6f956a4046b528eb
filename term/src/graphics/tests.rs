//! Tests of the graphics module against a real Term.
