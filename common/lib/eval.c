/* PLACEHOLDER: being written in this session. */
