package memstore

// SetStandingBytes stores data as the encoded record of name in namespace
// as it is: a record the store cannot read, which only a test can make.
func (s *Store) SetStandingBytes(namespace, name string, data []byte) {
	s.standing.mu.Lock()
	defer s.standing.mu.Unlock()
	s.standing.records[[2]string{namespace, name}] = data
}

// StandingBytes is the encoded record of name in namespace.
func (s *Store) StandingBytes(namespace, name string) []byte {
	s.standing.mu.Lock()
	defer s.standing.mu.Unlock()
	return s.standing.records[[2]string{namespace, name}]
}
