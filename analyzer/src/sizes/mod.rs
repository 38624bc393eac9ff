//! Object-size models: how many bytes (or thesis units) an instance of a class and an array of a
//! given length occupy on the heap, per `--object-model`. Filled in by the memAlloc work.
