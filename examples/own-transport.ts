import { WebSocketServer } from 'ws'
import { createUserQuestions } from 'askseam'
import { createRelay } from 'askseam/web'

const seam = createUserQuestions()
// The relay registers itself as the seam's provider and only needs send(text) and close().
const relay = createRelay(seam)
const sockets = new WebSocketServer({ host: '127.0.0.1', port: 8787 })
sockets.on('connection', (socket) => {
  const connection = relay.connect({
    send: (text) => socket.send(text),
    close: () => socket.close(),
  })
  socket.on('message', (data) => connection.receive(String(data)))
  socket.on('close', () => connection.disconnect())
})
