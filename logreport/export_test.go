package logreport

// SetChunkSize sets the size of the chunks logs are cut into and of the reads, for a test to
// cut small logs into many chunks and lines across reads; it returns the function that
// restores them.
func SetChunkSize(chunk, read int) (restore func()) {
	oldChunk, oldRead := chunkSize, readSize
	chunkSize, readSize = chunk, read
	return func() { chunkSize, readSize = oldChunk, oldRead }
}
